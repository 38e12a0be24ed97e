package agents

import (
	"context"
	"github.com/cogloop/cogloop/agents/spend"
)

// Model is the one seam between cogloop and a language model: real providers
// (through langchaingo, package types/llm), the offline scripted.Model and test fakes all
// sit behind it, so everything above (templates, retries, events, usage) runs the
// same way for each.
type Model interface {
	Generate(ctx context.Context, req Request) (Reply, error)
}

// ModelFunc adapts a function to [Model].
type ModelFunc func(ctx context.Context, req Request) (Reply, error)

// Generate calls f(ctx, req).
func (f ModelFunc) Generate(ctx context.Context, req Request) (Reply, error) { return f(ctx, req) }

// Request is one model call.
type Request struct {
	// Agent is the id of the calling agent (the scripted model answers by it).
	Agent string
	// Model is the provider's model name.
	Model string
	// System is an optional system message.
	System string
	// Prompt is the rendered user message.
	Prompt string
	// Temperature is always sent explicitly.
	Temperature float64
	// MaxTokens caps the completion; 0 leaves it to the provider.
	MaxTokens int
	// OnDelta, when set, asks the model to stream: it is called with each piece
	// of the reply as it arrives, in order, never concurrently and all before
	// Generate returns (not always from the calling goroutine). Models
	// that cannot stream ignore it and return the whole reply.
	OnDelta func(text string)
	// Scrub, when set, replaces the run's secrets in a text as the run record
	// does: a model answering from a record (--replay) scrubs the live
	// [Request.Transcript] with it before comparing. Models ignore it.
	Scrub func(text string) string
	// MaxReplyBytes bounds the reply: a model stops reading past it and fails
	// the call (types/llm: the decompressed response body, or a streamed
	// reply's text). 0 leaves it to the model's default.
	MaxReplyBytes int64
	// Messages continue the conversation after the System and Prompt messages:
	// the model's earlier turns of this call (with the tool calls it asked for)
	// and the tools' results, in order. Empty for a call's first round.
	Messages []Message
	// Tools are the functions the model may call in this round; nil offers none.
	Tools []ToolSpec
	// ToolChoice is "" or "auto" (the model decides), "required", "none", or
	// the name of one tool the model must call.
	ToolChoice string
	// Schema, when set, asks for a reply that is one JSON object valid against
	// this JSON Schema (structured output): providers with a JSON-schema or JSON
	// mode use it; the caller still validates the reply.
	Schema *ResponseSchema
}

// ToolSpec is a function offered to the model.
type ToolSpec struct {
	// Name is what the model calls it by (an agent id, or server.tool for MCP).
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// Parameters is the JSON Schema of the tool's arguments (an object schema).
	Parameters map[string]any
}

// ToolCall is one call the model asked for.
type ToolCall struct {
	// ID is the provider's id of the call; a tool result answers it.
	ID string
	// Name is the tool's name as offered in [Request.Tools].
	Name string
	// Args is the call's arguments as the model sent them: JSON text, not yet
	// checked (it may not even be JSON).
	Args string
}

// Message is one turn after the first prompt of a call: the model's reply in
// an earlier round (Role "assistant", with the ToolCalls it asked for), or the
// result of one tool call (Role "tool", answering ToolCallID).
type Message struct {
	Role       string
	Text       string
	ToolCalls  []ToolCall
	ToolCallID string
	// Name is the tool's name on a tool message.
	Name string
}

// ResponseSchema asks for structured output: a JSON object valid against Schema.
type ResponseSchema struct {
	// Name names the schema for providers that want one (the agent id).
	Name string
	// Schema is the JSON Schema, decoded.
	Schema map[string]any
}

// WorstCase is the most the call may use, as budgets reserve it: the
// estimated system and user messages (and the later messages of a tool
// round), and MaxTokens (or
// [spend.DefaultReserveTokens]) of completion.
func (req Request) WorstCase() spend.Usage {
	completion := req.MaxTokens
	if completion <= 0 {
		completion = spend.DefaultReserveTokens
	}
	prompt := spend.EstimateTokens(req.System) + spend.EstimateTokens(req.Prompt)
	for _, m := range req.Messages {
		prompt += spend.EstimateTokens(m.Text)
		for _, c := range m.ToolCalls {
			prompt += spend.EstimateTokens(c.Name) + spend.EstimateTokens(c.Args)
		}
	}
	return spend.Usage{PromptTokens: prompt, CompletionTokens: completion}
}

// Reply is a model's answer.
type Reply struct {
	Text  string
	Usage spend.Usage
	// ToolCalls are the tools the model asked to call before it answers; empty
	// when Text is its answer.
	ToolCalls []ToolCall
}

// ModelSource picks the model that answers a given agent's calls. It overrides the
// agent's configured provider for a run (see [Run.Models]): an agent it
// returns a Model for is answered by that model, an agent it returns nil and
// no error for keeps its configured provider, and an error fails the call.
type ModelSource interface {
	ModelFor(agentID string) (Model, error)
}
