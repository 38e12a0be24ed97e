package loopnode

import (
	"slices"
	"sort"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
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
				Vars:         n.entryNames(),
				CheckOutputs: true,
				Absent: func(string) string {
					return "past_loops_metadata templates see no previous_outputs; read the pass's values as score, insights, improvements, mistakes"
				},
			}, true
		}
	}
	return prompt.Scope{}, false
}

// entryNames are the variables a past_loops_metadata template sees:
// entryVars and the further extract_patterns categories (what an extraction
// of nothing reports).
func (n *Node) entryNames() []string {
	var out []string
	for k := range entryVars {
		out = append(out, k)
	}
	for k := range n.extractor.Extract(nil).Other {
		out = append(out, k)
	}
	return out
}

// checkConditionNames warns about names in the while and until expressions
// of stop_when that the loop does not provide: variables (see condData) and
// previous_outputs ids the internal workflow does not define. It reads the
// expressions from the YAML (their syntax is checked where stop_when is read).
func (n *Node) checkConditionNames(c *load.Config) {
	stop := c.Node("stop_when")
	if stop == nil {
		return
	}
	inner, _ := n.inner.(interface {
		Defines(id string) bool
		Queue() []string
	})
	vars := keysOf(n.condData(agents.Input{}, &state{}, 1, nil, nil).Vars)
	vars = append(vars, "loop_number")
	for _, m := range n.inputs {
		vars = append(vars, m.target)
	}
	eachExpr(stop, 0, func(kind string, v *yaml.Node) {
		e, err := prompt.ParseExpr(kind, v.Value, prompt.Options{})
		if err != nil {
			return // reported where stop_when is read
		}
		names := e.Names()
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
			pos := exprPos(c.File(), v, f.Line, f.Col)
			if f.Error {
				c.Problems().Errorf(pos, "%s: stop_when %s: %s", c.What(), kind, f.Msg)
			} else {
				c.Problems().Warnf(pos, "%s: stop_when %s: %s", c.What(), kind, f.Msg)
			}
		}
	})
}

// eachExpr calls fn for every while and until expression under n.
func eachExpr(n *yaml.Node, depth int, fn func(kind string, v *yaml.Node)) {
	n = load.Resolve(n)
	if n == nil || depth > 16 {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			eachExpr(item, depth+1, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, load.Resolve(n.Content[i+1])
			switch {
			case (k == condWhile || k == condUntil) && v != nil && v.Kind == yaml.ScalarNode:
				fn(k, v)
			case k == condAny || k == condAll:
				eachExpr(v, depth+1, fn)
			}
		}
	}
}

// exprPos maps a position inside a condition expression to the file: exact
// on the first line of a plain or quoted scalar, the line only elsewhere.
func exprPos(file string, v *yaml.Node, line, col int) load.Pos {
	switch {
	case line <= 1 && (v.Style == yaml.DoubleQuotedStyle || v.Style == yaml.SingleQuotedStyle):
		return load.Pos{File: file, Line: v.Line, Col: v.Column + col}
	case line <= 1 && v.Style != yaml.LiteralStyle && v.Style != yaml.FoldedStyle:
		return load.Pos{File: file, Line: v.Line, Col: v.Column + col - 1}
	case v.Style == yaml.LiteralStyle || v.Style == yaml.FoldedStyle:
		return load.Pos{File: file, Line: v.Line + line, Col: col}
	}
	return load.Pos{File: file, Line: v.Line + line - 1, Col: col}
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return slices.Clip(out)
}

// MaxLoops is the loop's max_loops.
func (n *Node) MaxLoops() int { return n.maxLoops }
