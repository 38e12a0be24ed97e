package llm

import (
	"encoding/json"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/cogloop/cogloop/agents"
)

// messages turns a request into langchaingo's messages: the system and user
// messages, then the tool rounds (the model's turns with their tool calls, and
// one tool message per result).
func (m *Model) messages(req agents.Request) []llms.MessageContent {
	msgs := make([]llms.MessageContent, 0, 2+len(req.Messages))
	if req.System != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, req.System))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, req.Prompt))
	for _, msg := range req.Messages {
		switch msg.Role {
		case "tool":
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: msg.ToolCallID, Name: wireName(msg.Name), Content: msg.Text}}})
		case "assistant":
			msgs = append(msgs, m.assistant(msg)...)
		default:
			msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, msg.Text))
		}
	}
	return msgs
}

// assistant is the model's turn with its tool calls. langchaingo's anthropic
// client reads one part per message, so there each call is a message of its
// own (the API joins consecutive turns of one role).
func (m *Model) assistant(msg agents.Message) []llms.MessageContent {
	var parts []llms.ContentPart
	if strings.TrimSpace(msg.Text) != "" {
		parts = append(parts, llms.TextContent{Text: msg.Text})
	}
	for _, c := range msg.ToolCalls {
		args := c.Args
		if m.cfg.Provider == Anthropic && !jsonObject(args) {
			// what the model sent was no JSON object; Anthropic's tool_use
			// input must be one (the model was told what was wrong)
			args = "{}"
		}
		parts = append(parts, llms.ToolCall{ID: c.ID, Type: "function", FunctionCall: &llms.FunctionCall{Name: wireName(c.Name), Arguments: args}})
	}
	if m.cfg.Provider != Anthropic {
		return []llms.MessageContent{{Role: llms.ChatMessageTypeAI, Parts: parts}}
	}
	out := make([]llms.MessageContent, len(parts))
	for i, p := range parts {
		out[i] = llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{p}}
	}
	return out
}

// toolOptions offers req's tools with its tool choice.
func toolOptions(req agents.Request) []llms.CallOption {
	if len(req.Tools) == 0 {
		return nil
	}
	tools := make([]llms.Tool, len(req.Tools))
	for i, t := range req.Tools {
		tools[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: wireName(t.Name), Description: t.Description, Parameters: t.Parameters}}
	}
	opts := []llms.CallOption{llms.WithTools(tools)}
	switch c := req.ToolChoice; c {
	case "", toolChoiceAuto:
	case toolChoiceRequired, toolChoiceNone:
		opts = append(opts, llms.WithToolChoice(c))
	default:
		opts = append(opts, llms.WithToolChoice(llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: wireName(c)}}))
	}
	return opts
}

// replyOf reads a response: the first choice's text and tool calls; for
// Anthropic, whose client makes each content block a choice, the text and
// calls of all of them (usage is the same on each: counted once).
func replyOf(p Provider, resp *llms.ContentResponse, tools []agents.ToolSpec) agents.Reply {
	chs := resp.Choices[:1]
	if p == Anthropic {
		chs = resp.Choices
	}
	var r agents.Reply
	var text []string
	counted := false
	for _, ch := range chs {
		if ch == nil {
			continue
		}
		if !counted {
			r.Usage, counted = Usage(ch.GenerationInfo), true
		}
		if ch.Content != "" {
			text = append(text, ch.Content)
		}
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			r.ToolCalls = append(r.ToolCalls, agents.ToolCall{ID: tc.ID, Name: ourName(tc.FunctionCall.Name, tools), Args: tc.FunctionCall.Arguments})
		}
	}
	r.Text = strings.Join(text, "\n")
	return r
}

// jsonObject reports whether s looks like one JSON object (a cheap test; the
// tool's check has already said what is wrong with it).
func jsonObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && json.Valid([]byte(s))
}

// wireName is a tool's name as a provider is sent it: providers accept only
// letters, digits, _ and - in function names, so the dot of an MCP tool
// (server.tool) goes as "__".
func wireName(name string) string { return strings.ReplaceAll(name, ".", "__") }

// ourName is the name of the offered tool a model's call names on the wire
// (the wire name itself when no tool has it).
func ourName(wire string, tools []agents.ToolSpec) string {
	for _, t := range tools {
		if t.Name == wire {
			return wire
		}
	}
	for _, t := range tools {
		if wireName(t.Name) == wire {
			return t.Name
		}
	}
	return wire
}
