package loopnode

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"go.yaml.in/yaml/v3"
)

// Feedback modes: what the next iteration gets as its input.
const (
	feedbackNone    = "none"    // the original input every time (OrKa)
	feedbackReplace = "replace" // the previous iteration's response
	feedbackAppend  = "append"  // input + "\n---\n" + response, text only
)

// Mapping sources and selections.
const (
	iterFirst      = "first"
	iterSubsequent = "subsequent"
	iterAll        = "all"

	takeLast  = "last"
	takeFirst = "first"
	takeAll   = "all"
	takeBest  = "best"

	builtinIterationCount = "iteration_count"
)

// inputMapping makes a value visible to internal prompts as {{ target }}.
type inputMapping struct {
	outer      string // a name outside the loop: a field of the loop's input, or previous_outputs.<path>
	node, out  string // a field of an agent's output in the previous iteration
	target     string
	iterations string
	pos        load.Pos // where node is written
}

// outputMapping adds outputs.<target> to the loop's output.
type outputMapping struct {
	node, out string
	builtin   string
	varName   string // a loop variable (vars:), after the pass's update
	target    string
	take      string
	pos       load.Pos
}

func readFeedback(c *load.Config) string {
	switch f := c.String("feedback", feedbackNone); f {
	case feedbackNone, feedbackReplace, feedbackAppend:
		return f
	default:
		c.Errorf("feedback", "feedback must be none, replace or append, not %q", f)
		return feedbackNone
	}
}

func listItems(c *load.Config, key string) []*load.Config {
	n := c.Node(key)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.Errorf(key, "%s must be a list", key)
		return nil
	}
	out := make([]*load.Config, 0, len(n.Content))
	for _, item := range n.Content {
		out = append(out, load.NewConfig(c.File(), item, c.What()+": "+key, c.Problems()))
	}
	return out
}

func readInputMappings(c *load.Config) []inputMapping {
	var out []inputMapping
	for _, m := range listItems(c, "input_mappings") {
		im := inputMapping{target: m.String("target", ""), iterations: m.String("iterations", iterAll)}
		if src := m.Map("source"); src == nil {
			m.Errorf("", "input mapping needs source: {outer: NAME} or {previous: {node, output}}")
		} else {
			im.outer = src.String("outer", "")
			if prev := src.Map("previous"); prev != nil {
				im.node, im.out = prev.String("node", ""), prev.String("output", "response")
				im.pos = prev.ValuePos("node")
				if im.node == "" {
					prev.Errorf("", "previous needs node: the agent whose last output is used")
				}
				prev.Done()
			}
			if (im.outer == "") == (im.node == "") {
				src.Errorf("", "source is either outer: NAME or previous: {node, output}")
			}
			src.Done()
		}
		if !validName(im.target) {
			m.Errorf("target", "target must be a template variable name (letters, digits, _), not %q", im.target)
		}
		switch im.iterations {
		case iterFirst, iterSubsequent, iterAll:
		default:
			m.Errorf("iterations", "iterations must be first, subsequent or all, not %q", im.iterations)
		}
		m.Done()
		out = append(out, im)
	}
	return out
}

func readOutputMappings(c *load.Config) []outputMapping {
	var out []outputMapping
	for _, m := range listItems(c, "output_mappings") {
		om := outputMapping{target: m.String("target", ""), take: m.String("take", takeLast)}
		if src := m.Map("source"); src == nil {
			m.Errorf("", "output mapping needs source: {node, output} or {builtin: iteration_count}")
		} else {
			om.node, om.out = src.String("node", ""), src.String("output", "response")
			om.pos = src.ValuePos("node")
			om.builtin = src.String("builtin", "")
			om.varName = src.String("var", "")
			if om.varName != "" {
				om.pos = src.ValuePos("var")
			}
			src.Accept("type", "name")
			if t := src.String("type", ""); t == "builtin" {
				om.builtin = src.String("name", "")
			}
			switch {
			case om.builtin != "" && om.builtin != builtinIterationCount:
				src.Errorf("builtin", "unknown builtin %q (known: %s)", om.builtin, builtinIterationCount)
			case om.varName != "" && (om.node != "" || om.builtin != ""):
				src.Errorf("var", "source is one of node, builtin or var, not several")
			case om.builtin == "" && om.node == "" && om.varName == "":
				src.Errorf("", "source needs node (and output), builtin: iteration_count or var: NAME")
			}
			src.Done()
		}
		if om.target == "" {
			m.Errorf("", "output mapping needs target: the name under outputs")
		}
		switch om.take {
		case takeLast, takeFirst, takeAll, takeBest:
		default:
			m.Errorf("take", "take must be last, first, all or best, not %q", om.take)
		}
		m.Done()
		out = append(out, om)
	}
	return out
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// nextInput is the input of the next iteration under the feedback mode.
func (n *Node) nextInput(cur any, st *state) (any, error) {
	switch n.feedback {
	case feedbackReplace:
		return n.answer(st.last), nil
	case feedbackAppend:
		text, ok := cur.(string)
		if !ok {
			return nil, fmt.Errorf("feedback: append joins text, but the loop's input is %T; use feedback: replace or pass text", cur)
		}
		return text + "\n---\n" + agents.Text(n.answer(st.last)), nil
	}
	return cur, nil
}

// iterationVars are the template variables of iteration loop (1-based): the
// score of the previous one, Loom's loop variables under both spellings, the
// same prefixed with the loop id for nested loops, and the input mappings.
// Each call returns a fresh map: a copy of the run's base (the variables from
// outside the loop and loop_start_time, with every per-pass name present)
// with this pass's values set.
func (n *Node) iterationVars(in agents.Input, st *state, loop int, task any, parent map[string]any) map[string]any {
	vars := maps.Clone(n.varsBase(in, st))
	n.setPassValues(vars, st, loop, task, parent, false)
	return vars
}

// passVars are iterationVars for the pass itself (its Input.Vars). They are
// one map per run, set in place from pass to pass: nothing holds a pass's
// Vars once the pass has returned (agents copy them before they add a name,
// fork branches end with the fork, and no agent keeps its Input), so the copy
// of the base is made once and not on every pass.
func (n *Node) passVars(in agents.Input, st *state, loop int, task any, parent map[string]any) map[string]any {
	if st.passVars == nil {
		st.passVars = n.iterationVars(in, st, loop, task, parent)
		return st.passVars
	}
	n.setPassValues(st.passVars, st, loop, task, parent, true)
	return st.passVars
}

// varsBase is what iterationVars copies: the variables from outside the loop,
// every per-pass name present (so the copies never grow) and loop_start_time.
func (n *Node) varsBase(in agents.Input, st *state) map[string]any {
	if st.varsBase != nil {
		return st.varsBase
	}
	names := n.loopVarNames()
	base := make(map[string]any, len(in.Vars)+len(names)*len(names[0])+1+len(n.vars)+len(n.declared)+len(n.inputs))
	for k, v := range in.Vars {
		base[k] = v
	}
	for i := range names {
		for _, name := range names[i] {
			base[name] = nil
		}
	}
	start := st.start.Format(time.RFC3339Nano)
	for _, name := range names[startTimeVar] {
		base[name] = start
	}
	st.varsBase = base
	return base
}

// setPassValues sets pass loop's values in vars, a copy of the base (reused:
// the map of an earlier pass, whose input mapping targets go back to the
// base first, so the result is the same as on a fresh copy).
func (n *Node) setPassValues(vars map[string]any, st *state, loop int, task any, parent map[string]any, reused bool) {
	if reused {
		for _, m := range n.inputs {
			if v, ok := st.varsBase[m.target]; ok {
				vars[m.target] = v
			} else {
				delete(vars, m.target)
			}
		}
	}
	names := n.loopVarNames()
	var result any = ""
	switch {
	case st.last != nil && st.last == st.answerOf:
		result = st.lastAnswer
	case st.last != nil:
		result = n.answer(st.last)
	}
	values := [startTimeVar]any{loop - 1, loop, result}
	for i, v := range values {
		for _, name := range names[i] {
			vars[name] = v
		}
	}
	vars["score"] = st.score
	for _, v := range n.vars {
		if cur, ok := st.vars[v.name]; ok {
			vars[v.name] = cur
		} else {
			vars[v.name] = v.initial
		}
	}
	for _, d := range n.declared {
		vars[d.name] = st.bound[d.name]
	}
	for _, m := range n.inputs {
		if m.iterations == iterFirst && loop != 1 || m.iterations == iterSubsequent && loop == 1 {
			continue
		}
		if m.outer != "" {
			if v, ok := st.bound[m.outer]; ok {
				vars[m.target] = v // a declared input, its default included
			} else {
				vars[m.target] = outerValue(m.outer, task, parent)
			}
			continue
		}
		if o, ok := st.last.Get(m.node); ok {
			v, _ := fieldOf(o, m.out)
			vars[m.target] = v
		}
	}
}

// loopVarNames are Loom's loop variables; the values of iterationVars are in
// this order.
var loopVarNames = [...]string{"loop_index", "loop_count", "loop_result", "loop_start_time"}

// startTimeVar is loop_start_time's index in loopVarNames: the last, the one
// whose value is the same on every pass.
const startTimeVar = 3

// loopVarNames returns, for each of loopVarNames, the four names it is bound
// under: as is, camel-cased, and both prefixed with the loop id. They are made
// once per node.
func (n *Node) loopVarNames() *[len(loopVarNames)][4]string {
	n.loopNamesOnce.Do(func() {
		for i, k := range loopVarNames {
			n.loopNames[i] = [4]string{k, camel(k), n.id + "_" + k, n.id + "_" + camel(k)}
		}
	})
	return &n.loopNames
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}

// outerValue resolves a name outside the loop: "input" is the loop's input; a
// key of a mapping input; else a dotted path into the parent's previous_outputs.
func outerValue(name string, task any, parent map[string]any) any {
	if name == "input" {
		return task
	}
	if m, ok := task.(map[string]any); ok {
		if v, ok := m[name]; ok {
			return v
		}
	}
	var cur any = parent
	for _, part := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

// recordMappings keeps this iteration's value of every output mapping.
func (n *Node) recordMappings(st *state, outs *agents.Outputs, loop int) {
	if len(n.outputs) == 0 {
		return
	}
	if st.mapped == nil {
		st.mapped = map[string][]any{}
	}
	for _, m := range n.outputs {
		var v any
		if m.builtin == builtinIterationCount {
			v = loop
		} else if m.varName != "" {
			v = n.varsOf(st)[m.varName]
		} else if o, ok := outs.Get(m.node); ok {
			v, _ = fieldOf(o, m.out)
		}
		st.mapped[m.target] = append(st.mapped[m.target], v)
	}
	st.mappedPass = append(st.mappedPass, loop)
}

// mappedAt is the value of vals (a mapping's values) that pass recorded.
func mappedAt(st *state, vals []any, pass int) (any, bool) {
	for i, p := range st.mappedPass {
		if p == pass && i < len(vals) {
			return vals[i], true
		}
	}
	return nil, false
}

// mappedOutputs is outputs.<target> of the loop's output; take: last reads
// pass, the pass the loop returns (under return: best, take: best does).
func (n *Node) mappedOutputs(st *state, pass int) map[string]any {
	out := make(map[string]any, len(n.outputs))
	for _, m := range n.outputs {
		vals := st.mapped[m.target]
		if m.builtin == builtinIterationCount && m.take != takeAll {
			out[m.target] = completedPasses(st.iterations)
			continue
		}
		if len(vals) == 0 {
			out[m.target] = nil
			continue
		}
		switch m.take {
		case takeFirst:
			out[m.target] = vals[0]
		case takeAll:
			out[m.target] = append([]any(nil), vals...)
		case takeBest:
			out[m.target], _ = mappedAt(st, vals, st.bestIter)
		default:
			if v, ok := mappedAt(st, vals, pass); ok {
				out[m.target] = v
			} else {
				out[m.target] = vals[len(vals)-1]
			}
		}
	}
	return out
}

// sleep waits d between iterations; cancellation and the loop's timeout cut it short.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	return retry.Sleep(ctx, d)
}
