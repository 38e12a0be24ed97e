package agents

import (
	"context"
	"github.com/cogloop/cogloop/agents/spend"
)

// Model is the one seam between cogloop and a language model: real providers
// (through langchaingo, package agents/llm), the offline scripted.Model and test fakes all
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
	// of the reply as it arrives, in order, from the calling goroutine. Models
	// that cannot stream ignore it and return the whole reply.
	OnDelta func(text string)
}

// WorstCase is the most the call may use, as budgets reserve it: the
// estimated system and user messages, and MaxTokens (or
// [spend.DefaultReserveTokens]) of completion.
func (req Request) WorstCase() spend.Usage {
	completion := req.MaxTokens
	if completion <= 0 {
		completion = spend.DefaultReserveTokens
	}
	return spend.Usage{PromptTokens: spend.EstimateTokens(req.System) + spend.EstimateTokens(req.Prompt), CompletionTokens: completion}
}

// Reply is a model's answer.
type Reply struct {
	Text  string
	Usage spend.Usage
}

// ModelSource picks the model that answers a given agent's calls. It overrides the
// agent's configured provider for a run (see [Run.Models]).
type ModelSource interface {
	ModelFor(agentID string) (Model, error)
}
