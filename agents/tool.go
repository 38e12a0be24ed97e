package agents

import (
	"context"

	"github.com/cogloop/cogloop/agents/load"
)

// Tool is an agent offered to a model as a function it may call (tools: on an
// LLM agent). The model's arguments reach the agent as in.Vars["args"] (a
// map decoded from the model's JSON), so its templates read {{ args.name }}.
type Tool struct {
	// Spec is what the model is told: the agent id, its description and the
	// JSON Schema of its arguments.
	Spec ToolSpec
	// Type is the agent's type (for events); Agent runs the call.
	Type  string
	Agent Agent
	// Check validates the call's arguments (JSON text) against Spec.Parameters
	// and returns them decoded; an error says what is wrong, for the model.
	Check func(args string) (map[string]any, error)
	// Expand, when set, makes this entry a placeholder resolved at call time
	// (an MCP server's tools, fs.read_file or fs.*): it returns the tools the
	// entry stands for in the run of ctx. Spec.Name is then the name as written.
	Expand func(ctx context.Context) ([]*Tool, error)
}

// Tools reads key of c (tools: [ids]) as the tools an LLM agent offers its
// model: each id names an agent of the workflow (or an enclosing one) with a
// description. Unknown ids and agents without a description are recorded as
// problems at the id's position; such ids are left out.
func (b *Builder) Tools(c *load.Config, key string) []*Tool {
	ids := c.Strings(key)
	if len(ids) == 0 {
		return nil
	}
	n := c.Node(key)
	out := make([]*Tool, 0, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		pos := c.ValuePos(key)
		if n != nil && i < len(n.Content) {
			pos = c.PosOf(n.Content[i])
		}
		if seen[id] {
			c.Problems().Errorf(pos, "%s: %s names %q twice", c.What(), key, id)
			continue
		}
		seen[id] = true
		if t := b.w.Tool(id, pos); t != nil {
			out = append(out, t)
		}
	}
	return out
}
