package orchestrator

import (
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"go.yaml.in/yaml/v3"
)

// hints are what a definition tells graph-scout about itself.
type hints struct {
	capabilities  []string
	terminal      bool
	prompt, model string
}

// readHints reads the graph-scout hints capabilities: and is_terminal: of a
// definition (so they are accepted on every agent type and checked), and
// notes its prompt and model text without reading them for its factory.
func readHints(c *load.Config) hints {
	h := hints{capabilities: c.Strings("capabilities"), terminal: c.Bool("is_terminal", false)}
	text := func(key string) string {
		if v := c.Peek(key); v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
		return ""
	}
	h.prompt = text("prompt")
	if h.model = strings.TrimSpace(text("model")); h.model == "" {
		h.model = strings.TrimSpace(text("llm_model"))
	}
	return h
}

// Visible describes the agents of this workflow and the enclosing ones,
// nearest first, each in file order; an id defined again nearer hides the
// outer definition, as lookup does.
func (sb *scopeBuilder) Visible() []agents.AgentInfo {
	var out []agents.AgentInfo
	seen := map[string]bool{}
	for sc := sb.s; sc != nil; sc = sc.parent {
		for _, d := range sc.order {
			if seen[d.id] {
				continue
			}
			seen[d.id] = true
			out = append(out, agents.AgentInfo{ID: d.id, Type: d.typ, Capabilities: append([]string(nil), d.hints.capabilities...),
				Terminal: d.hints.terminal, Prompt: d.hints.prompt, Model: d.hints.model})
		}
	}
	return out
}

// Resolver finds visible agents by id. The definitions are read when the
// function is called, after the load, when every one is built; they do not
// change then, so the function is safe for concurrent use.
func (sb *scopeBuilder) Resolver() func(id string) (agents.Step, bool) {
	s := sb.s
	return func(id string) (agents.Step, bool) {
		d := s.lookup(id)
		if d == nil || d.state != built {
			return agents.Step{}, false
		}
		return agents.NewStep(d.id, d.typ, d.agent), true
	}
}
