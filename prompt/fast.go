package prompt

import (
	"fmt"
	"github.com/cogloop/cogloop/internal/pyvalue"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// Most prompt expressions are variable paths (previous_outputs.writer.response)
// and helper calls with literal arguments (get_input(), get_agent_response('x')).
// gonja evaluates them through reflection and allocates several values per
// step; fastExpr evaluates them directly on the Go data, and falls back to
// gonja for anything else (structs, methods, strict-mode errors, ...), so the
// result is always the one gonja would give.

// helperFunc is the type of our global helper functions, so that the fast path
// can recognise them in the context (a variable of the same name hides them).
type helperFunc func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value

type fastKind uint8

const (
	fastPath fastKind = iota + 1 // name(.attr)*
	fastCall                     // helper(literal, ...)
)

type fastExpr struct {
	kind  fastKind
	name  string
	attrs []string
	va    *exec.VarArgs // literal arguments of a call; helpers never change them
}

// compileFast returns the fast form of expr, or nil. It runs after rewrite, so
// attribute objects may be wrapped as (x or "").
func compileFast(expr nodes.Node) *fastExpr {
	if noFast {
		return nil
	}
	switch x := expr.(type) {
	case *nodes.Name:
		return &fastExpr{kind: fastPath, name: x.Name.Val}
	case *nodes.GetAttribute:
		return compileFastAttr(x)
	case *nodes.Call:
		return compileFastCall(x)
	}
	return nil
}

// compileFastAttr is compileFast of path.attr.
func compileFastAttr(x *nodes.GetAttribute) *fastExpr {
	if x.Attribute == "" {
		return nil
	}
	inner := x.Node
	if b, ok := inner.(*nodes.BinaryExpression); ok && b.Operator.Token.Type == tokens.Or {
		if s, ok := b.Right.(*nodes.String); ok && s.Val == "" {
			inner = b.Left
		}
	}
	f := compileFast(inner)
	if f == nil || f.kind != fastPath {
		return nil
	}
	attrs := make([]string, len(f.attrs), len(f.attrs)+1)
	copy(attrs, f.attrs)
	return &fastExpr{kind: fastPath, name: f.name, attrs: append(attrs, x.Attribute)}
}

// compileFastCall is compileFast of helper(literal, ...).
func compileFastCall(x *nodes.Call) *fastExpr {
	name, ok := x.Func.(*nodes.Name)
	if !ok || len(x.Kwargs) > 0 {
		return nil
	}
	f := &fastExpr{kind: fastCall, name: name.Name.Val, va: &exec.VarArgs{}}
	for _, a := range x.Args {
		var v any
		switch l := a.(type) {
		case *nodes.String:
			v = l.Val
		case *nodes.Integer:
			v = l.Val
		case *nodes.Float:
			v = l.Val
		case *nodes.Bool:
			v = l.Val
		default:
			return nil
		}
		f.va.Args = append(f.va.Args, exec.AsValue(v))
	}
	return f
}

// nameScope is where a fast expression looks names up: gonja's render context
// (rendererScope) or a planned render's variables (planRun).
type nameScope interface {
	lookup(name string) (any, bool)
	state() *renderState
}

// rendererScope is a gonja renderer seen as a nameScope.
type rendererScope exec.Renderer

func (s *rendererScope) lookup(name string) (any, bool) { return s.Environment.Context.Get(name) }
func (s *rendererScope) state() *renderState            { return rendererState((*exec.Renderer)(s)) }

// eval evaluates f; ok is false when gonja must evaluate the expression.
func (f *fastExpr) eval(r *exec.Renderer) (v any, ok bool) {
	if f == nil {
		return nil, false
	}
	return f.evalIn((*rendererScope)(r), r.Config.StrictUndefined)
}

// evalIn evaluates f with the names of sc; ok is false when gonja must
// evaluate the expression.
func (f *fastExpr) evalIn(sc nameScope, strict bool) (v any, ok bool) {
	v, found := sc.lookup(f.name)
	if f.kind == fastCall {
		return f.callHelper(sc, v)
	}
	if !found {
		return nil, !strict
	}
	for _, attr := range f.attrs {
		if v, ok = attrOf(v, attr, strict); !ok {
			return nil, false
		}
	}
	return v, true
}

// callHelper calls the OrKa helper v (f names it) with f's arguments; ok is
// false when v is no helper or the call fails (gonja then says why, in context).
func (f *fastExpr) callHelper(sc nameScope, v any) (any, bool) {
	h, isHelper := v.(helperFunc)
	st := sc.state()
	if !isHelper || st == nil {
		return nil, false
	}
	he, _ := h(nil, whoAreYou).Interface().(*helperEntry)
	if he == nil {
		return nil, false
	}
	out, err := he.call(st, f.va)
	if err != nil {
		return nil, false
	}
	return out, true
}

// attrOf is v.attr for a map, a namespace or none: a missing attribute is
// none, or not ok when strict; any other v is not ok (gonja's renderer
// handles it).
func attrOf(v any, attr string, strict bool) (any, bool) {
	var found bool
	switch m := unval(v).(type) {
	case map[string]any:
		v, found = m[attr]
	case namespace:
		v, found = m[attr]
	case *pyvalue.Dict:
		v, found = m.Get(attr)
	case nil:
	default:
		return nil, false
	}
	if !found {
		return nil, !strict
	}
	return v, true
}

// evalFast evaluates expr, through f when it can.
func evalFast(r *exec.Renderer, f *fastExpr, expr nodes.Expression) (*exec.Value, error) {
	if v, ok := f.eval(r); ok {
		return toValue(v), nil
	}
	v := r.Eval(expr)
	if v.IsError() {
		return nil, v
	}
	return v, nil
}

// fastFiltered is {{ path | f(literal, ...) | g }} or {{ helper() | f }}, the
// common filtered outputs ({{ note.text | truncate(80) }}): the path or helper
// call is evaluated on the fast path and the filters are called as gonja's
// EvaluateFiltered calls them, which spares gonja's generic evaluation of the
// path (reflection, one value per step).
type fastFiltered struct {
	base    *fastExpr
	filters []*nodes.FilterCall
}

func compileFiltered(expr nodes.Node) *fastFiltered {
	fe, ok := expr.(*nodes.FilteredExpression)
	if !ok || noFast {
		return nil
	}
	base := compileFast(fe.Expression)
	if base == nil {
		return nil
	}
	for _, fc := range fe.Filters {
		for _, a := range fc.Args {
			if !isLiteral(a) {
				return nil
			}
		}
		for _, a := range fc.Kwargs {
			if !isLiteral(a) {
				return nil
			}
		}
	}
	return &fastFiltered{base: base, filters: fe.Filters}
}

func isLiteral(n nodes.Expression) bool {
	switch n.(type) {
	case *nodes.String, *nodes.Integer, *nodes.Float, *nodes.Bool:
		return true
	}
	return false
}

// eval evaluates f; ok is false when gonja must evaluate the whole expression,
// which it does when the path is undefined or None (filters such as default
// tell those apart, and the fast path does not). A failing filter gives an
// error value wrapped as EvaluateFiltered wraps it.
func (f *fastFiltered) eval(r *exec.Renderer) (*exec.Value, bool) {
	if f == nil {
		return nil, false
	}
	v, ok := f.base.eval(r)
	if !ok || v == nil {
		return nil, false
	}
	val := toValue(v)
	if val.IsNil() {
		return nil, false
	}
	e := r.Evaluator()
	for _, fc := range f.filters {
		val = e.ExecuteFilter(fc, val)
		if val.IsError() {
			return exec.AsValue(fmt.Errorf("unable to evaluate filter %s: %w", fc, val)), true
		}
	}
	return val, true
}
