package loopnode

import (
	"slices"
	"sort"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/prompt"
	"go.yaml.in/yaml/v3"
)

// What the loop binds in templates, for the load-time name checks (the
// orchestrator's builder asks ChildVars and TemplateScope; conditions are
// checked here). The lists come from the functions that bind the variables
// at run time, called with an empty state, so they cannot drift apart.

// ChildVars lists the variables the agents of the internal workflow see
// besides input and previous_outputs: loop_number and past_loops_metadata
// (from the iteration's [agents.LoopState]), the loop variables, score and
// the input_mappings targets.
func (n *Node) ChildVars() []string {
	vars := n.iterationVars(agents.Input{}, &state{}, 1, nil, nil)
	out := append(keysOf(vars), "loop_number", "past_loops_metadata")
	for _, m := range n.inputs {
		out = append(out, m.target)
	}
	return out
}

// TemplateScope is what the loop's own templates (past_loops_metadata) see:
// the variables of a past_loops entry, and no previous_outputs.
func (n *Node) TemplateScope(t *prompt.Template) (prompt.Scope, bool) {
	for _, m := range n.metas {
		if m.tmpl == t {
			return prompt.Scope{
				Vars:         keysOf(entryVars(entryContext{})),
				CheckOutputs: true,
				Absent: func(string) string {
					return "past_loops_metadata templates see no previous_outputs; read the pass's values as score, insights, improvements, mistakes"
				},
			}, true
		}
	}
	return prompt.Scope{}, false
}

// checkConditionNames warns about names in while and until expressions that
// the loop does not provide: variables (see condData) and previous_outputs
// ids the internal workflow does not define.
func (n *Node) checkConditionNames(c *agents.Config) {
	inner, _ := n.inner.(interface {
		Defines(id string) bool
		Queue() []string
	})
	vars := keysOf(n.condData(agents.Input{}, &state{}, 1, nil).Vars)
	vars = append(vars, "loop_number")
	for _, m := range n.inputs {
		vars = append(vars, m.target)
	}
	n.stop.each(func(cond *condition) {
		if cond.expr == nil || cond.exprAt == nil {
			return
		}
		names := cond.expr.Names()
		scope := &prompt.Scope{Vars: vars}
		if inner != nil {
			scope.CheckOutputs = true
			scope.Agents = inner.Queue()
			for _, nm := range names {
				if nm.Kind == prompt.NameOutput && inner.Defines(nm.Name) {
					scope.Agents = append(scope.Agents, nm.Name)
				}
			}
		}
		for _, f := range prompt.Check(names, scope) {
			pos := exprPos(c.File(), cond.exprAt, f.Line, f.Col)
			if f.Error {
				c.Problems().Errorf(pos, "%s: stop_when %s: %s", c.What(), cond.kind, f.Msg)
			} else {
				c.Problems().Warnf(pos, "%s: stop_when %s: %s", c.What(), cond.kind, f.Msg)
			}
		}
	})
}

// each calls fn for every condition of the tree.
func (c *condition) each(fn func(*condition)) {
	if c == nil {
		return
	}
	fn(c)
	for _, ch := range c.children {
		ch.each(fn)
	}
}

// exprPos maps a position inside a condition expression to the file: exact
// on the first line of a plain or quoted scalar, the line only elsewhere.
func exprPos(file string, v *yaml.Node, line, col int) agents.Pos {
	switch {
	case line <= 1 && (v.Style == yaml.DoubleQuotedStyle || v.Style == yaml.SingleQuotedStyle):
		return agents.Pos{File: file, Line: v.Line, Col: v.Column + col}
	case line <= 1 && v.Style != yaml.LiteralStyle && v.Style != yaml.FoldedStyle:
		return agents.Pos{File: file, Line: v.Line, Col: v.Column + col - 1}
	case v.Style == yaml.LiteralStyle || v.Style == yaml.FoldedStyle:
		return agents.Pos{File: file, Line: v.Line + line, Col: col}
	}
	return agents.Pos{File: file, Line: v.Line + line - 1, Col: col}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return slices.Clip(out)
}
