package loopnode

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Condition is one stop condition of [Config.StopWhen] (YAML stop_when:).
// Kind is the YAML key that names it, and the fields it reads are:
//
//   - "score": the pass's score reaches Threshold (0: the loop's Threshold);
//   - "evaluator": Agent's answer says done;
//   - "stable_output": Agent's output stays the same to Threshold (0: 0.95)
//     between passes;
//   - "while", "until": the template expression Expr (over previous_outputs,
//     score, loop_number, the loop's variables, ...) turns false / true;
//   - "continue_while": Output ("agent.field") compared by Operator (==,
//     !=, <, >, <=, >=; "": ==) with Value turns false;
//   - "stagnation": Repeats passes give the same answer, or the best score
//     improved less than MinImprovement over the last Rounds passes;
//   - "any", "all": of the conditions in Of.
//
// Before checks a while, until or continue_while condition before each pass
// (YAML check: before) instead of after it.
type Condition struct {
	Kind   string
	Before bool

	Threshold float64
	Agent     string
	Expr      string

	Output   string
	Operator string
	Value    any

	Repeats        int
	MinImprovement float64
	Rounds         int

	Of []Condition
}

// InputMapping makes a value visible to the passes' prompts as {{ Target }}
// (YAML input_mappings:): Outer, a field of the loop's input or
// previous_outputs.<path>; or Node's Output field (default "response") in
// the previous pass. Iterations is "first", "subsequent" or "all" (default).
type InputMapping struct {
	Target     string
	Outer      string
	Node       string
	Output     string
	Iterations string
}

// OutputMapping adds outputs.<Target> to the loop's output (YAML
// output_mappings:): Node's Output field (default "response"), the builtin
// "iteration_count", or the loop variable Var; Take picks the pass: "last"
// (default), "first", "best" or "all" (a list).
type OutputMapping struct {
	Target  string
	Node    string
	Output  string
	Builtin string
	Var     string
	Take    string
}

// Var is a loop variable (Config.Vars: Value is its initial value, a text
// with {{ }} a template rendered once at the loop's start) or an update of
// one (Config.Update: Value is the template, rendered after each pass).
type Var struct {
	Name  string
	Value any
}

// InputDecl declares a field of the loop's input that its prompts see as
// {{ Name }} (YAML inputs:): a missing Required one is a run error; else
// Default takes its place.
type InputDecl struct {
	Name     string
	Required bool
	Default  any
}

// goPos names where a Go-built setting is written, for run errors.
func goPos(field string, i int) load.Pos {
	return load.Pos{File: fmt.Sprintf("Config.%s[%d]", field, i)}
}

// compileConditions turns Config.StopWhen into the tree stop_when: reads
// into: a list fires when any of it does; nil for none.
func compileConditions(list []Condition, threshold float64) (*condition, error) {
	if len(list) == 0 {
		return nil, nil
	}
	return compileGroup(condAny, list, threshold, "", 0)
}

func compileGroup(kind string, list []Condition, threshold float64, path string, depth int) (*condition, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: %s needs a non-empty list of conditions", strings.TrimPrefix(path, "."), kind)
	}
	g := &condition{kind: kind}
	var errs []error
	for i, c := range list {
		child, err := compileCondition(c, threshold, fmt.Sprintf("%s[%d]", path, i), depth)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g.children = append(g.children, child)
	}
	g.before = len(g.children) > 0
	phases := map[bool]bool{}
	for _, ch := range g.children {
		g.before = g.before && ch.before
		phases[ch.before] = true
	}
	if kind == condAll && len(phases) > 1 {
		errs = append(errs, fmt.Errorf("%s: all mixes Before and after conditions, which can never hold together; split them", strings.TrimPrefix(path, ".")))
	}
	return g, errors.Join(errs...)
}

// compileCondition compiles one Condition with the checks the YAML reader
// makes; path names it in errors (StopWhen[0].Of[1]).
func compileCondition(c Condition, threshold float64, path string, depth int) (*condition, error) {
	at := strings.TrimPrefix(path, ".")
	if depth > 16 {
		return nil, fmt.Errorf("%s: conditions nest more than 16 deep", at)
	}
	cond := &condition{kind: c.Kind, before: c.Before, pos: load.Pos{File: "Config.StopWhen" + path}}
	if c.Before && c.Kind != condWhile && c.Kind != condUntil && c.Kind != condContinueWhile {
		return nil, fmt.Errorf("%s: Before works with while, until and continue_while; %s needs a pass to judge", at, c.Kind)
	}
	if c.Kind == condAny || c.Kind == condAll {
		return compileGroup(c.Kind, c.Of, threshold, path+".Of", depth+1)
	}
	err := compileLeaf(c, cond, threshold)
	if err == nil && (cond.threshold < 0 || cond.threshold > 1) {
		err = fmt.Errorf("threshold must be 0..1, not %g", cond.threshold)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	return cond, nil
}

// compileLeaf fills cond from c, a condition of one kind (not any or all).
func compileLeaf(c Condition, cond *condition, threshold float64) error {
	var err error
	switch c.Kind {
	case condScore:
		cond.threshold = threshold
		if c.Threshold != 0 {
			cond.threshold = c.Threshold
		}
	case condEvaluator, condStable:
		cond.agent, cond.ref = c.Agent, c.Agent
		cond.threshold = c.Threshold
		if c.Kind == condStable && c.Threshold == 0 {
			cond.threshold = 0.95
		}
		if c.Agent == "" {
			err = fmt.Errorf("%s needs Agent: the agent whose output decides", c.Kind)
		}
	case condWhile, condUntil:
		cond.exprPos = cond.pos
		cond.expr, err = prompt.ParseExpr("stop_when "+c.Kind, c.Expr, prompt.Options{})
		if err == nil {
			cond.strict, err = prompt.ParseExpr("stop_when "+c.Kind, c.Expr, prompt.Options{Strict: true})
		}
		if strings.TrimSpace(c.Expr) == "" {
			err = fmt.Errorf("%s needs Expr, e.g. \"previous_outputs.review.approved == false\"", c.Kind)
		}
	case condContinueWhile:
		cond.output, cond.operator, cond.value = c.Output, cmp.Or(c.Operator, "=="), agents.Plain(c.Value)
		cond.ref, _, _ = strings.Cut(c.Output, ".")
		err = checkContinueWhile(cond)
	case condStagnation:
		cond.repeats, cond.minImprovement, cond.rounds = c.Repeats, c.MinImprovement, c.Rounds
		err = checkStagnation(c)
	default:
		err = fmt.Errorf("unknown condition kind %q (known: %s)", c.Kind, strings.Join(condKinds, ", "))
	}
	return err
}

func checkContinueWhile(c *condition) error {
	var errs []error
	if !strings.Contains(c.output, ".") {
		errs = append(errs, fmt.Errorf("continue_while's Output names an agent and a field, e.g. review.approved, not %q", c.output))
	}
	if !slices.Contains(operators, c.operator) {
		errs = append(errs, fmt.Errorf("continue_while's Operator must be one of %s, not %q", strings.Join(operators, " "), c.operator))
	}
	return errors.Join(errs...)
}

func checkStagnation(c Condition) error {
	switch {
	case c.Repeats != 0 && (c.Repeats < 2 || c.Repeats > 1000):
		return fmt.Errorf("stagnation's Repeats must be 2..1000, not %d", c.Repeats)
	case c.Rounds < 0 || c.Rounds > 1000 || c.MinImprovement < 0 || c.MinImprovement > 1:
		return fmt.Errorf("stagnation's Rounds must be 1..1000 and MinImprovement 0..1")
	case (c.MinImprovement != 0) != (c.Rounds != 0):
		return errors.New("stagnation's MinImprovement and Rounds go together: stop when the best score improved less than MinImprovement over the last Rounds passes")
	case c.Repeats == 0 && c.Rounds == 0:
		return errors.New("stagnation needs Repeats, or MinImprovement with Rounds")
	}
	return nil
}

// compileInputMappings checks Config.InputMappings as input_mappings: is.
func compileInputMappings(list []InputMapping) ([]inputMapping, error) {
	var errs []error
	out := make([]inputMapping, 0, len(list))
	for i, m := range list {
		im := inputMapping{target: m.Target, outer: m.Outer, node: m.Node, out: cmp.Or(m.Output, "response"),
			iterations: cmp.Or(m.Iterations, iterAll), pos: goPos("InputMappings", i)}
		if (m.Outer == "") == (m.Node == "") {
			errs = append(errs, fmt.Errorf("[%d]: give Outer or Node, one of them", i))
		}
		if !validName(m.Target) {
			errs = append(errs, fmt.Errorf("[%d]: Target must be a template variable name (letters, digits, _), not %q", i, m.Target))
		}
		if !slices.Contains([]string{iterFirst, iterSubsequent, iterAll}, im.iterations) {
			errs = append(errs, fmt.Errorf("[%d]: Iterations must be first, subsequent or all, not %q", i, m.Iterations))
		}
		out = append(out, im)
	}
	return out, errors.Join(errs...)
}

// compileOutputMappings checks Config.OutputMappings as output_mappings: is.
func compileOutputMappings(list []OutputMapping) ([]outputMapping, error) {
	var errs []error
	out := make([]outputMapping, 0, len(list))
	for i, m := range list {
		om := outputMapping{target: m.Target, node: m.Node, out: cmp.Or(m.Output, "response"), builtin: m.Builtin,
			varName: m.Var, take: cmp.Or(m.Take, takeLast), pos: goPos("OutputMappings", i)}
		sources := 0
		for _, s := range []string{m.Node, m.Builtin, m.Var} {
			if s != "" {
				sources++
			}
		}
		switch {
		case sources != 1:
			errs = append(errs, fmt.Errorf("[%d]: give one of Node, Builtin or Var", i))
		case m.Builtin != "" && m.Builtin != builtinIterationCount:
			errs = append(errs, fmt.Errorf("[%d]: unknown Builtin %q (known: %s)", i, m.Builtin, builtinIterationCount))
		}
		if m.Target == "" {
			errs = append(errs, fmt.Errorf("[%d]: Target is empty: the name under outputs", i))
		}
		if !slices.Contains([]string{takeLast, takeFirst, takeAll, takeBest}, om.take) {
			errs = append(errs, fmt.Errorf("[%d]: Take must be last, first, all or best, not %q", i, m.Take))
		}
		out = append(out, om)
	}
	return out, errors.Join(errs...)
}

// compileGoVars compiles Config.Vars, Update and Inputs onto n and checks
// Outputs and the mappings of variables, as the YAML reader does.
func (n *Node) compileGoVars(cfg Config) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loop %q: "+format, append([]any{cfg.ID}, args...)...))
	}
	reserved := n.reservedVars()
	for i, v := range cfg.Vars {
		lv, err := compileVar(v, goPos("Vars", i), reserved)
		if err != nil {
			bad("Vars[%d]: %v", i, err)
			continue
		}
		n.vars = append(n.vars, lv)
	}
	names := n.varNames()
	for i, u := range cfg.Update {
		text, ok := u.Value.(string)
		if !slices.Contains(names, u.Name) || !ok {
			bad("Update[%d]: %q must name a variable of Vars and give a template text", i, u.Name)
			continue
		}
		t, err := prompt.Parse("update "+u.Name, text, prompt.Options{})
		if err != nil {
			bad("Update[%d]: %v", i, err)
			continue
		}
		n.updates = append(n.updates, varUpdate{name: u.Name, tmpl: t, pos: goPos("Update", i)})
	}
	return errors.Join(append(errs, n.compileGoDecls(cfg, names))...)
}

// compileGoDecls compiles Config.Inputs onto n and checks Outputs and the
// output mappings of variables against names, the variables.
func (n *Node) compileGoDecls(cfg Config, names []string) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loop %q: "+format, append([]any{cfg.ID}, args...)...))
	}
	for i, d := range cfg.Inputs {
		if !validName(d.Name) {
			bad("Inputs[%d]: Name must be a variable name (letters, digits, _), not %q", i, d.Name)
		}
		if d.Required && d.Default != nil {
			bad("Inputs[%d]: input %q is Required and has a Default; give one of them", i, d.Name)
		}
		n.declared = append(n.declared, declaredInput{name: d.Name, required: d.Required, def: agents.Plain(d.Default),
			hasDefault: d.Default != nil, pos: goPos("Inputs", i)})
	}
	for _, m := range n.outputs {
		if m.varName != "" && !slices.Contains(names, m.varName) {
			bad("OutputMappings: Var %q is not a loop variable (declare it in Vars)", m.varName)
		}
	}
	known := names
	for _, m := range n.outputs {
		known = append(known, m.target)
	}
	for _, o := range cfg.Outputs {
		if !slices.Contains(known, o) {
			bad("Outputs: %q is neither an OutputMappings target nor a loop variable", o)
		}
	}
	return errors.Join(errs...)
}

func compileVar(v Var, pos load.Pos, reserved map[string]bool) (loopVar, error) {
	switch {
	case !validName(v.Name):
		return loopVar{}, fmt.Errorf("%q is not a variable name (letters, digits, _)", v.Name)
	case reserved[v.Name]:
		return loopVar{}, fmt.Errorf("%q is a name the loop binds itself; choose another name", v.Name)
	}
	lv := loopVar{name: v.Name, initial: agents.Plain(v.Value), pos: pos}
	if s, ok := lv.initial.(string); ok && (strings.Contains(s, "{{") || strings.Contains(s, "{%")) {
		t, err := prompt.Parse("vars "+v.Name, s, prompt.Options{})
		if err != nil {
			return loopVar{}, err
		}
		lv.tmpl = t
	}
	return lv, nil
}

// checkGoRefs reports conditions, mappings and OutputAgent that name no step
// of a Go-built body, when the body can tell (a sequence's step ids, or a
// workflow's agents): the check the YAML reader makes with positions.
func (n *Node) checkGoRefs() error {
	defines := stepIDs(n.inner)
	if defines == nil {
		return nil
	}
	var errs []error
	check := func(what, id string) {
		if id != "" && !defines(id) {
			errs = append(errs, fmt.Errorf("loop %q: %s names %q, which Body does not define", n.id, what, id))
		}
	}
	n.stop.refs(func(id string, _ load.Pos) { check("StopWhen", id) })
	for _, m := range n.inputs {
		check("InputMappings", m.node)
	}
	for _, m := range n.outputs {
		check("OutputMappings", m.node)
	}
	check("OutputAgent", n.outputAgent)
	return errors.Join(errs...)
}

// stepIDs tells which agent ids body defines, or nil when it cannot tell: a
// workflow says, a sequence of Go functions is its steps.
func stepIDs(body agents.Agent) func(string) bool {
	var steps []agents.Step
	switch b := body.(type) {
	case interface{ Defines(id string) bool }:
		return b.Defines
	case agents.Sequence:
		steps = b.Steps
	case *agents.Sequence:
		steps = b.Steps
	default:
		return nil
	}
	for _, s := range steps {
		if _, leaf := agents.Unwrap(s.Agent).(agents.Func); !leaf {
			return nil // a composite step (a fork, a loop) defines ids of its own
		}
	}
	return func(id string) bool {
		return slices.ContainsFunc(steps, func(s agents.Step) bool { return s.ID == id })
	}
}
