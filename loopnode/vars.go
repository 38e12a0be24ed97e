package loopnode

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
	"go.yaml.in/yaml/v3"
)

// Loop state variables (issue 17, Loom's variables()/setVariable, TEA's state
// carried between passes): vars: {name: initial} declares them, update:
// {name: "{{ template }}"} sets them after each completed pass, in the order
// written. Prompts, conditions, mappings, the loop's output (vars) and its
// checkpoints see them.

// loopVar is one declared variable. An initial value that is a template
// ("{{ get_input() | split(',') }}") is rendered once at the loop's start with
// the loop's input and declared inputs; a template that is one expression
// keeps its value's type.
type loopVar struct {
	name    string
	initial any
	tmpl    *prompt.Template
	pos     load.Pos
}

// varUpdate sets one variable after each pass.
type varUpdate struct {
	name string
	tmpl *prompt.Template
	pos  load.Pos
}

// reservedVars are names the loop binds itself; a variable may not hide them.
func (n *Node) reservedVars() map[string]bool {
	r := map[string]bool{"input": true, "previous_outputs": true, "loop_number": true, "past_loops_metadata": true,
		"past_loops": true, "best_score": true, "scoring_context": true}
	for k := range n.iterationVars(agents.Input{}, &state{}, 1, nil, nil) {
		r[k] = true
	}
	for _, m := range n.inputs {
		r[m.target] = true
	}
	return r
}

func readVars(c *load.Config, reserved map[string]bool) []loopVar {
	m := c.Node("vars")
	if m == nil {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		c.Errorf("vars", "vars must be a mapping {name: initial value}, not %s", load.KindName(m))
		return nil
	}
	var out []loopVar
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], load.Resolve(m.Content[i+1])
		pos := c.PosOf(k)
		switch {
		case !validName(k.Value):
			c.Problems().Errorf(pos, "%s: vars: %q is not a variable name (letters, digits, _)", c.What(), k.Value)
			continue
		case reserved[k.Value]:
			c.Problems().Errorf(pos, "%s: vars: %q is a name the loop binds itself; choose another name", c.What(), k.Value)
			continue
		}
		var val any
		if err := v.Decode(&val); err != nil {
			c.Problems().Errorf(c.PosOf(v), "%s: vars: %s: %v", c.What(), k.Value, err)
			continue
		}
		lv := loopVar{name: k.Value, initial: agents.Plain(val), pos: c.PosOf(v)}
		if s, ok := lv.initial.(string); ok && (strings.Contains(s, "{{") || strings.Contains(s, "{%")) {
			t, err := prompt.Parse(c.What()+" vars "+k.Value, s, prompt.Options{})
			if err != nil {
				c.Problems().Errorf(c.PosOf(v), "%s: vars: %s: %v", c.What(), k.Value, err)
				continue
			}
			lv.tmpl = t
		}
		out = append(out, lv)
	}
	return out
}

func readUpdates(c *load.Config, names []string) []varUpdate {
	m := c.Node("update")
	if m == nil {
		return nil
	}
	if m.Kind != yaml.MappingNode {
		c.Errorf("update", "update must be a mapping {variable: \"{{ template }}\"}, not %s", load.KindName(m))
		return nil
	}
	var out []varUpdate
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], load.Resolve(m.Content[i+1])
		if !slices.Contains(names, k.Value) {
			hint := closestHint(k.Value, names, "declare it under vars: with its initial value")
			c.Problems().Errorf(c.PosOf(k), "%s: update: %q is not a declared variable (%s)", c.What(), k.Value, hint)
			continue
		}
		if v == nil || v.Kind != yaml.ScalarNode {
			c.Problems().Errorf(c.PosOf(v), "%s: update: %s must be a template (text), not %s", c.What(), k.Value, load.KindName(v))
			continue
		}
		t, err := prompt.Parse(c.What()+" update "+k.Value, v.Value, prompt.Options{})
		if err != nil {
			var se *prompt.SyntaxError
			if errors.As(err, &se) {
				c.Problems().Errorf(c.PosOf(v), "%s: update: %s: %s", c.What(), k.Value, se.Msg)
			} else {
				c.Problems().Errorf(c.PosOf(v), "%s: update: %s: %v", c.What(), k.Value, err)
			}
			continue
		}
		out = append(out, varUpdate{name: k.Value, tmpl: t, pos: c.PosOf(v)})
	}
	return out
}

// initVars renders the initial values that are templates, once, at the
// loop's start: they see input (get_input()), the declared inputs and the
// variables from outside the loop. A resumed loop keeps its checkpoint's values.
func (n *Node) initVars(in agents.Input, st *state) error {
	if st.vars != nil {
		return nil // restored from a checkpoint
	}
	for _, v := range n.vars {
		if v.tmpl == nil {
			continue
		}
		vars := maps.Clone(in.Vars)
		if vars == nil {
			vars = map[string]any{}
		}
		for k, b := range st.bound {
			vars[k] = b
		}
		data := prompt.Data{Input: st.input, Vars: vars}
		if missing := v.tmpl.Missing(data); len(missing) > 0 {
			return fmt.Errorf("vars %s at %s: %s not defined (an initial value sees input, get_input() and the declared inputs)", v.name, v.pos, strings.Join(missing, ", "))
		}
		val, err := v.tmpl.Eval(data)
		if err != nil {
			return fmt.Errorf("vars %s at %s: %w", v.name, v.pos, err)
		}
		if st.vars == nil {
			st.vars = n.varsOf(st)
		}
		st.vars[v.name] = agents.Plain(val)
	}
	return nil
}

// varsOf is the variables' current values: st.vars, or the initial values
// before the first update.
func (n *Node) varsOf(st *state) map[string]any {
	out := make(map[string]any, len(n.vars))
	for _, v := range n.vars {
		if cur, ok := st.vars[v.name]; ok {
			out[v.name] = cur
		} else {
			out[v.name] = v.initial
		}
	}
	return out
}

// applyUpdates evaluates update: after pass loop, in order; each template sees
// the values set before it. A template that is one expression keeps its
// value's type (a list stays a list). An undefined name is an error naming
// the variable and where its template is written.
func (n *Node) applyUpdates(in agents.Input, st *state, loop int) error {
	if len(n.updates) == 0 {
		return nil
	}
	st.vars = n.varsOf(st)
	for _, u := range n.updates {
		data := n.condData(in, st, loop, st.last, st.input)
		if missing := u.tmpl.Missing(data); len(missing) > 0 {
			return fmt.Errorf("update %s at %s: %s not defined", u.name, u.pos, strings.Join(missing, ", "))
		}
		v, err := u.tmpl.Eval(data)
		if err != nil {
			return fmt.Errorf("update %s at %s: %w", u.name, u.pos, err)
		}
		st.vars[u.name] = agents.Plain(v)
	}
	return nil
}
