package orchestrator

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Input is one declared input of a workflow (the top-level orchestrator's
// inputs: [{name, type, description, required, default}]): a field of the
// run's input, which must then be a mapping. `cogloop mcp serve` offers the
// workflow with an input schema built from them.
type Input struct {
	Name        string
	Type        string // a JSON Schema type; string unless given
	Description string
	Required    bool
	Default     any
	HasDefault  bool
	Pos         load.Pos
}

var (
	inputName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	inputTypes = []string{"string", "number", "integer", "boolean", "object", "array"}
)

// readInputs reads the orchestrator's inputs: list.
func readInputs(orch *load.Config) []Input {
	if orch.Recording() {
		orch.Decode("inputs", new(any)) // a list of {name, type, description, required, default}
		return nil
	}
	n := orch.Node("inputs")
	if n == nil || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		orch.Errorf("inputs", "inputs must be a list of {name, type, description, required, default}")
		return nil
	}
	var out []Input
	seen := map[string]bool{}
	for _, item := range n.Content {
		c := load.NewConfig(orch.File(), item, orch.What()+": inputs", orch.Problems())
		in := Input{Name: c.String("name", ""), Type: c.String("type", "string"), Description: c.String("description", ""),
			Required: c.Bool("required", false), Pos: c.Pos()}
		switch {
		case !inputName.MatchString(in.Name):
			c.Errorf("name", "inputs: name must be a variable name (a letter or _, then letters, digits, _), not %q", in.Name)
		case seen[in.Name]:
			c.Errorf("name", "inputs: %q is declared twice", in.Name)
		}
		seen[in.Name] = true
		if !slices.Contains(inputTypes, in.Type) {
			c.Errorf("type", "inputs: type of %q must be one of %s, not %q", in.Name, strings.Join(inputTypes, ", "), in.Type)
		}
		if c.Has("default") {
			in.HasDefault = true
			var v any
			if c.Decode("default", &v) {
				in.Default = agents.Plain(v)
			}
			if in.Required {
				c.Errorf("default", "input %q is required and has a default; give one of them", in.Name)
			}
		}
		c.Done()
		out = append(out, in)
	}
	return out
}

// InputSchema is the JSON Schema of the run's input: an object with the
// declared inputs as properties, or nil when the workflow declares none.
func (w *Workflow) InputSchema() map[string]any {
	if len(w.Inputs) == 0 {
		return nil
	}
	props := map[string]any{}
	required := []any{}
	for _, in := range w.Inputs {
		p := map[string]any{"type": in.Type}
		if in.Description != "" {
			p["description"] = in.Description
		}
		if in.HasDefault {
			p["default"] = in.Default
		}
		props[in.Name] = p
		if in.Required {
			required = append(required, in.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// BindInputs checks input against the declared inputs: a workflow that
// declares some takes a mapping that has every required one; the defaults
// of those it lacks are added (in a copy). Without declared inputs, input
// is returned as it is.
func (w *Workflow) BindInputs(input any) (any, error) {
	if len(w.Inputs) == 0 {
		return input, nil
	}
	m, ok := input.(map[string]any)
	if !ok {
		if input == nil || input == "" {
			m = map[string]any{}
		} else {
			return nil, fmt.Errorf("workflow %q declares inputs (%s), so its input is a JSON object with those fields, not %s (the CLI's --json-input reads one)",
				w.ID, w.inputNames(), describe(input))
		}
	}
	out := make(map[string]any, len(m)+len(w.Inputs))
	for k, v := range m {
		out[k] = v
	}
	for _, in := range w.Inputs {
		if _, has := m[in.Name]; has {
			continue
		}
		switch {
		case in.Required:
			return nil, fmt.Errorf("workflow %q: required input %q is missing (declared at %s): give it in the input object", w.ID, in.Name, in.Pos)
		case in.HasDefault:
			out[in.Name] = in.Default
		}
	}
	return out, nil
}

func (w *Workflow) inputNames() string {
	names := make([]string, len(w.Inputs))
	for i, in := range w.Inputs {
		names[i] = in.Name
	}
	return strings.Join(names, ", ")
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		if r := []rune(s); len(r) > 40 {
			s = string(r[:40]) + "…"
		}
		return fmt.Sprintf("the text %q", s)
	}
	return fmt.Sprintf("a %T", v)
}
