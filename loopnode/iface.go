package loopnode

import (
	"fmt"
	"maps"
	"slices"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// The declared loop interface (issue 17, the component loop's inputs and
// outputs): inputs: [{name, required, default}] are fields of the loop's
// input that its prompts see as {{ name }}; a missing required one is a run
// error naming it. outputs: [names] are the names the loop's output carries
// under outputs (output_mappings targets or vars); a name that is neither is
// a load error.

// declaredInput is one entry of inputs:.
type declaredInput struct {
	name       string
	required   bool
	def        any
	hasDefault bool
	pos        load.Pos
}

func readDeclaredInputs(c *load.Config) []declaredInput {
	var out []declaredInput
	for _, m := range listItems(c, "inputs") {
		d := declaredInput{name: m.String("name", ""), required: m.Bool("required", false), pos: m.Pos()}
		if !validName(d.name) {
			m.Errorf("name", "inputs: name must be a variable name (letters, digits, _), not %q", d.name)
		}
		if m.Has("default") {
			d.hasDefault = true
			if v := load.Resolve(m.Node("default")); v != nil {
				var val any
				if err := v.Decode(&val); err == nil {
					d.def = agents.Plain(val)
				}
			}
			if d.required {
				m.Errorf("default", "input %q is required and has a default; give one of them", d.name)
			}
		}
		m.Done()
		out = append(out, d)
	}
	return out
}

// closestHint is "did you mean X?" for the candidate closest to name, else fallback.
func closestHint(name string, candidates []string, fallback string) string {
	if s := load.Closest(name, candidates); s != "" {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return fallback
}

// varNames are the declared variables' names.
func (n *Node) varNames() []string {
	names := make([]string, len(n.vars))
	for i, v := range n.vars {
		names[i] = v.name
	}
	return names
}

// checkVarMappings reports output_mappings whose source var is not declared.
func checkVarMappings(c *load.Config, n *Node) {
	names := n.varNames()
	for _, m := range n.outputs {
		if m.varName != "" && !slices.Contains(names, m.varName) {
			hint := closestHint(m.varName, names, "declare it under vars:")
			c.Problems().Errorf(m.pos, "%s: output_mappings: var %q is not a loop variable (%s)", c.What(), m.varName, hint)
		}
	}
}

func readDeclaredOutputs(c *load.Config, n *Node) []string {
	if !c.Has("outputs") {
		return nil
	}
	names := c.Strings("outputs")
	known := []string{}
	for _, m := range n.outputs {
		known = append(known, m.target)
	}
	known = append(known, n.varNames()...)
	list := c.Node("outputs")
	for i, name := range names {
		if slices.Contains(known, name) {
			continue
		}
		pos := c.ValuePos("outputs")
		if list != nil && i < len(list.Content) {
			pos = c.PosOf(list.Content[i])
		}
		hint := closestHint(name, known, "name an output_mappings target or a variable under vars")
		c.Problems().Errorf(pos, "%s: outputs: %q is neither an output_mappings target nor a loop variable (%s)", c.What(), name, hint)
	}
	return names
}

// bindInputs resolves the declared inputs from the loop's input (a mapping):
// their values, or an error naming the first required input that is missing.
func (n *Node) bindInputs(task any) (map[string]any, error) {
	if len(n.declared) == 0 {
		return nil, nil
	}
	m, _ := task.(map[string]any)
	out := make(map[string]any, len(n.declared))
	for _, d := range n.declared {
		v, ok := m[d.name]
		switch {
		case ok:
			out[d.name] = v
		case d.required:
			return nil, fmt.Errorf("required input %q is missing: the loop's input %s has no field %q (declared at %s); pass it in the loop's input, or give the input a default",
				d.name, describeInput(task), d.name, d.pos)
		default:
			out[d.name] = d.def
		}
	}
	return out, nil
}

// withDefaults is the loop's input with the declared inputs' defaults added
// where a mapping input lacks them, so get_input() and get_input_field()
// see what {{ name }} sees; other inputs are returned as they are.
func (n *Node) withDefaults(task any, bound map[string]any) any {
	m, ok := task.(map[string]any)
	if !ok {
		return task
	}
	var out map[string]any
	for _, d := range n.declared {
		if _, has := m[d.name]; has || !d.hasDefault {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[d.name] = bound[d.name]
	}
	if out == nil {
		return task
	}
	return out
}

func describeInput(task any) string {
	if m, ok := task.(map[string]any); ok {
		keys := keysOf(m)
		slices.Sort(keys)
		return fmt.Sprintf("(a mapping with %v)", keys)
	}
	return fmt.Sprintf("(%T, not a mapping)", task)
}

// loopKind names the loop in events (Loom's loopType): threshold without
// stop_when, else the kind of its one condition (until, while, evaluator, …)
// or any/all for several.
func (n *Node) loopKind() string {
	c := n.stop
	if c == nil {
		return condScore
	}
	for (c.kind == condAny || c.kind == condAll) && len(c.children) == 1 {
		c = c.children[0]
	}
	return c.kind
}
