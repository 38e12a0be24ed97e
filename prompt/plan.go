package prompt

import (
	"errors"
	"slices"

	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
)

// A plan renders a template without gonja's renderer: no render context (a
// map per scope), no visitor, no value per step. Templates made only of text,
// {{ }} outputs, {% if %}, {% for %} (without an inline if), break, continue
// and comments are planned at parse time; every other template renders
// through gonja.
//
// A planned render evaluates variable paths, helper calls and filters with
// literal arguments on the Go data (fast.go) and calls filters directly; any
// other expression is evaluated by gonja's evaluator in a context that holds
// the same variables a gonja render would have at that point. Whenever the
// plan meets something it does not handle exactly as gonja (an error, a strict
// undefined name, a limit, a panic), it gives up and the template is rendered
// again through gonja from the start: rendering has no side effects, so the
// output or the error is gonja's, always. Tests compare both paths on every
// template of the repository (plan_test.go).

// planNode is one planned node.
type planNode interface {
	run(p *planRun) error
}

// errAbort makes a planned render give up: gonja renders the template.
var errAbort = errors.New("plan: render through gonja")

// errBreak and errContinue carry {% break %} and {% continue %} to their loop.
var (
	errBreak    = errors.New("plan: break")
	errContinue = errors.New("plan: continue")
)

// planRun is one planned render.
type planRun struct {
	t    *Template
	st   renderState
	w    limitedWriter
	vars []planVar       // loop variables, innermost last
	root *exec.Context   // this render's variables for gonja's evaluator, built on first use
	fe   *exec.Evaluator // filters' evaluator, built on first use
}

type planVar struct {
	name string
	val  any
}

// lookup finds name as gonja's context would: loop variables, then the data
// bound for the render, then the globals.
func (p *planRun) lookup(name string) (any, bool) {
	for i := len(p.vars) - 1; i >= 0; i-- {
		if p.vars[i].name == name {
			return p.vars[i].val, true
		}
	}
	if v, ok := p.st.d.bound(name); ok {
		return v, true
	}
	v, ok := sharedEnv().globalMap[name]
	return v, ok
}

func (p *planRun) state() *renderState { return &p.st }

// context returns a gonja context holding what a gonja render's context holds
// at this point: the globals, the render's data and state, the loop variables.
func (p *planRun) context() *exec.Context {
	if p.root == nil {
		p.root = p.t.env.Context.Inherit()
		bind(p.root, &p.st.d, &p.st)
	}
	if len(p.vars) == 0 {
		return p.root
	}
	c := p.root.Inherit()
	for _, v := range p.vars {
		c.Set(v.name, v.val)
	}
	return c
}

// gonjaEval evaluates x with gonja's evaluator; ok is false on an error.
func (p *planRun) gonjaEval(x nodes.Expression) (*exec.Value, bool) {
	env := p.environment(p.context())
	e := exec.Evaluator{Config: p.t.cfg, Environment: env, Loader: p.t.loader}
	v := e.Eval(x)
	if v.IsError() {
		return nil, false
	}
	return v, true
}

func (p *planRun) environment(ctx *exec.Context) *exec.Environment {
	return &exec.Environment{
		Context:           ctx,
		Filters:           p.t.env.Filters,
		Tests:             p.t.env.Tests,
		ControlStructures: p.t.env.ControlStructures,
		Methods:           p.t.env.Methods,
	}
}

// filterEval is the evaluator filters get: they read only the render state
// from its context (limits.go) and the filter and test sets.
func (p *planRun) filterEval() *exec.Evaluator {
	if p.fe == nil {
		ctx := p.root
		if ctx == nil {
			ctx = p.t.env.Context.Inherit()
			ctx.Set(stateKey, &p.st)
		}
		p.fe = &exec.Evaluator{Config: p.t.cfg, Environment: p.environment(ctx), Loader: p.t.loader}
	}
	return p.fe
}

// runPlan renders t through its plan; ok is false when gonja must render it.
func (t *Template) runPlan(d Data) (out string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			out, ok = "", false
		}
	}()
	p := &planRun{t: t}
	p.st = renderState{d: d, maxOut: t.maxOut, maxWork: workFactor * t.maxOut}
	p.w.st = &p.st
	p.w.b.Grow(min(int(t.hint.Load()), t.maxOut))
	if err := runNodes(p, t.plan); err != nil {
		return "", false
	}
	return p.w.b.String(), true
}

// evalPlan evaluates t's single expression through its plan.
func (t *Template) evalPlan(d Data) (v any, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			v, ok = nil, false
		}
	}()
	p := &planRun{t: t}
	p.st = renderState{d: d, maxOut: t.maxOut, maxWork: workFactor * t.maxOut}
	p.w.st = &p.st
	v, ok = t.planSingle.eval(p)
	if !ok {
		return nil, false
	}
	switch v.(type) {
	case string, int, float64, bool:
		return v, true // what goValue(toValue(v)) gives, without the wrapper
	}
	return goValue(toValue(v)), true
}

func runNodes(p *planRun, ns []planNode) error {
	for _, n := range ns {
		if err := n.run(p); err != nil {
			return err
		}
	}
	return nil
}

// compilePlan plans the (rewritten) template body; nil when a node has no
// planned form.
func compilePlan(ns []nodes.Node) ([]planNode, bool) {
	if noPlan {
		return nil, false
	}
	out := make([]planNode, 0, len(ns))
	for _, n := range ns {
		if _, ok := n.(*nodes.Comment); ok {
			continue
		}
		b, ok := n.(*nodes.ControlStructureBlock)
		if !ok {
			return nil, false
		}
		cs := b.ControlStructure
		if l, ok := cs.(*located); ok {
			cs = l.inner
		}
		if d, ok := cs.(*dataNode); ok && d.text == "" {
			continue
		}
		pn, ok := planOf(cs)
		if !ok {
			return nil, false
		}
		out = append(out, pn)
	}
	return out, true
}

// planOf is the planned form of one control structure; not ok when it has none.
func planOf(cs nodes.ControlStructure) (planNode, bool) {
	switch c := cs.(type) {
	case *dataNode:
		return planData(c.text), true
	case *outputNode:
		if c.n.Condition != nil {
			return nil, false
		}
		return &planOutput{x: compileExpr(c.n.Expression)}, true
	case *ifNode:
		return planIfOf(c)
	case *forNode:
		return planForOf(c)
	case *controlStructures.BreakControlStructure:
		return planJump{errBreak}, true
	case *controlStructures.ContinueControlStructure:
		return planJump{errContinue}, true
	}
	return nil, false
}

func planIfOf(c *ifNode) (planNode, bool) {
	x := &planIf{}
	for _, cond := range c.conds {
		x.conds = append(x.conds, compileExpr(cond))
	}
	for _, w := range c.wrappers {
		body, ok := compilePlan(w.Nodes)
		if !ok {
			return nil, false
		}
		x.bodies = append(x.bodies, body)
	}
	return x, true
}

func planForOf(c *forNode) (planNode, bool) {
	if c.cond != nil {
		return nil, false
	}
	x := &planFor{f: c, iter: compileExpr(c.iter)}
	body, ok := compilePlan(c.body.Nodes)
	if !ok {
		return nil, false
	}
	x.body = body
	if c.empty != nil {
		if x.empty, ok = compilePlan(c.empty.Nodes); !ok {
			return nil, false
		}
		x.hasEmpty = true
	}
	return x, true
}

// planData writes literal text.
type planData string

func (d planData) run(p *planRun) error {
	if _, err := p.w.WriteString(string(d)); err != nil {
		return errAbort
	}
	return nil
}

// planOutput writes {{ expression }} as outputNode does.
type planOutput struct {
	x *planExpr
}

func (o *planOutput) run(p *planRun) error {
	pv, ok := o.x.evalOut(p)
	if !ok {
		return errAbort
	}
	if pv.str {
		if _, err := p.w.WriteString(pv.s); err != nil {
			return errAbort
		}
		return nil
	}
	v := pv.v
	var buf [32]byte
	var err error
	if b := appendNumber(buf[:0], v); b != nil {
		_, err = p.w.Write(b)
	} else {
		_, err = p.w.WriteString(pyStr(v))
	}
	if err != nil {
		return errAbort
	}
	return nil
}

// planIf is ifNode: the first true condition's body, in the same scope.
type planIf struct {
	conds  []*planExpr
	bodies [][]planNode // one per condition, then the else body if any
}

func (n *planIf) run(p *planRun) error {
	for i, c := range n.conds {
		v, ok := c.eval(p)
		if !ok {
			return errAbort
		}
		if truthy(v) {
			return runNodes(p, n.bodies[i])
		}
	}
	if len(n.bodies) > len(n.conds) {
		return runNodes(p, n.bodies[len(n.conds)])
	}
	return nil
}

// planFor is forNode: one scope per iteration, the loop variable, the
// iteration budget.
type planFor struct {
	f           *forNode
	iter        *planExpr
	body, empty []planNode
	hasEmpty    bool
}

func (n *planFor) run(p *planRun) error {
	obj, ok := n.iter.eval(p)
	if !ok {
		return errAbort
	}
	f := n.f
	items := f.items(obj)
	mark := len(p.vars)
	defer func() { p.vars = p.vars[:mark] }()
	if len(items) == 0 {
		if n.hasEmpty {
			return runNodes(p, n.empty)
		}
		return nil
	}
	depth := 1
	if parent, ok := p.lookup("loop"); ok {
		if l, ok := parent.(*loopInfo); ok {
			depth = l.depth + 1
		}
	}
	loop := &loopInfo{items: items, depth: depth}
	p.vars = slices.Grow(p.vars, 3) // key, value, loop: one allocation, not three
	for i, it := range items {
		if err := p.st.tick(); err != nil {
			return errAbort
		}
		p.vars = p.vars[:mark]
		k, v := f.targets(it)
		p.vars = append(p.vars, planVar{f.key, k})
		if f.value != "" {
			p.vars = append(p.vars, planVar{f.value, v})
		}
		loop.i = i
		if !f.shadowsLoop() {
			p.vars = append(p.vars, planVar{"loop", loop})
		}
		switch err := runNodes(p, n.body); {
		case err == nil || errors.Is(err, errContinue):
		case errors.Is(err, errBreak):
			return nil
		default:
			return err
		}
	}
	return nil
}

// planJump is {% break %} or {% continue %}.
type planJump struct{ err error }

func (j planJump) run(*planRun) error { return j.err }

// planExpr evaluates one expression: on the fast paths when they apply, else
// with gonja's evaluator.
type planExpr struct {
	node nodes.Expression
	fast *fastExpr
	filt *planFiltered
	lit  bool // a literal: gonja's value for it is AsValue of the node's value
}

func compileExpr(x nodes.Expression) *planExpr {
	return &planExpr{node: x, fast: compileFast(x), filt: compilePlanFiltered(x), lit: isLiteral(x)}
}

// eval returns the expression's value; ok is false when the render must go
// through gonja.
func (x *planExpr) eval(p *planRun) (any, bool) {
	v, ok := x.evalOut(p)
	return v.value(), ok
}

// evalOut is eval with a string result left unboxed, for outputs.
func (x *planExpr) evalOut(p *planRun) (pval, bool) {
	if x.fast != nil {
		if v, ok := x.fast.evalIn(p, p.t.cfg.StrictUndefined); ok {
			return pval{v: v}, true
		}
	}
	if x.filt != nil {
		if v, done, ok := x.filt.eval(p); done {
			return v, ok
		}
	}
	if x.lit {
		return pval{v: literalValue(x.node)}, true
	}
	if v, ok := p.gonjaEval(x.node); ok {
		return pval{v: v}, true
	}
	return pval{}, false
}

func literalValue(n nodes.Expression) *exec.Value {
	switch l := n.(type) {
	case *nodes.String:
		return exec.AsValue(l.Val)
	case *nodes.Integer:
		return exec.AsValue(l.Val)
	case *nodes.Float:
		return exec.AsValue(l.Val)
	case *nodes.Bool:
		return exec.AsValue(l.Val)
	}
	return exec.AsValue(nil)
}

// planFiltered is a path or helper call followed by filters with literal
// arguments; the filters are called as gonja's ExecuteFilter calls them.
type planFiltered struct {
	base    *fastExpr
	filters []planFilter
}

type planFilter struct {
	fn   exec.FilterFunction
	args []any
	kw   map[string]any
	// trunc: truncate(length[, suffix]) with literal arguments, applied to a
	// string directly (no values, no argument list), as filterTruncate does
	trunc bool
	n     int
	sfx   string
}

// directTruncate fills f's direct form of truncate(args) when it has one.
func (f *planFilter) directTruncate(fc *nodes.FilterCall) {
	if fc.Name != "truncate" || len(fc.Kwargs) > 0 || len(fc.Args) > 2 {
		return
	}
	f.n, f.sfx = 100, "..."
	if len(f.args) > 0 {
		n, ok := f.args[0].(int)
		if !ok {
			return
		}
		f.n = n
	}
	if len(f.args) > 1 {
		switch x := f.args[1].(type) {
		case string:
			f.sfx = x
		case bool: // Jinja's killwords: ignored
		default:
			return
		}
	}
	f.trunc = true
}

func compilePlanFiltered(expr nodes.Expression) *planFiltered {
	ff := compileFiltered(expr)
	if ff == nil {
		return nil
	}
	pf := &planFiltered{base: ff.base}
	filters := sharedEnv().filters
	for _, fc := range ff.filters {
		fn, ok := filters.Get(fc.Name)
		if !ok || !filters.Exists(fc.Name) {
			return nil
		}
		f := planFilter{fn: fn}
		for _, a := range fc.Args {
			f.args = append(f.args, literalValue(a).Interface())
		}
		if len(fc.Kwargs) > 0 {
			f.kw = make(map[string]any, len(fc.Kwargs))
			for k, a := range fc.Kwargs {
				f.kw[k] = literalValue(a).Interface()
			}
		}
		f.directTruncate(fc)
		pf.filters = append(pf.filters, f)
	}
	return pf
}

// eval evaluates the filtered expression; done is false when the path is
// undefined or None (filters such as default tell those apart: gonja
// evaluates the expression), ok false when a filter fails. The value is a Go
// string after a direct truncate, else a gonja value.
func (f *planFiltered) eval(p *planRun) (v pval, done, ok bool) {
	b, found := f.base.evalIn(p, p.t.cfg.StrictUndefined)
	if !found || b == nil {
		return pval{}, false, false
	}
	if s, isStr := b.(string); isStr {
		v = pval{s: s, str: true}
	} else {
		val := toValue(b)
		if val.IsNil() {
			return pval{}, false, false
		}
		v = pval{v: val}
	}
	for i := range f.filters {
		pf := &f.filters[i]
		if pf.trunc && v.str {
			v.s = truncateString(v.s, pf.n, pf.sfx)
			continue
		}
		params := exec.NewVarArgs()
		for _, a := range pf.args {
			params.Args = append(params.Args, exec.AsValue(a))
		}
		for k, a := range pf.kw {
			params.KwArgs[k] = exec.AsValue(a)
		}
		val := pf.fn(p.filterEval(), toValue(v.value()), params)
		if val.IsError() {
			return pval{}, true, false
		}
		v = pval{v: val}
	}
	return v, true, true
}

// pval is an evaluated value: a string kept unboxed (s, when str), or v.
type pval struct {
	v   any
	s   string
	str bool
}

func (x pval) value() any {
	if x.str {
		return x.s
	}
	return x.v
}
