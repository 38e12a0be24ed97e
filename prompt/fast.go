package prompt

import (
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

// noFast turns the fast paths off; tests use it to check that they give what
// gonja gives.
var noFast bool

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
	case *nodes.Call:
		name, ok := x.Func.(*nodes.Name)
		if !ok || len(x.Kwargs) > 0 {
			return nil
		}
		f := &fastExpr{kind: fastCall, name: name.Name.Val, va: &exec.VarArgs{}}
		for _, a := range x.Args {
			switch l := a.(type) {
			case *nodes.String:
				f.va.Args = append(f.va.Args, exec.AsValue(l.Val))
			case *nodes.Integer:
				f.va.Args = append(f.va.Args, exec.AsValue(l.Val))
			case *nodes.Float:
				f.va.Args = append(f.va.Args, exec.AsValue(l.Val))
			case *nodes.Bool:
				f.va.Args = append(f.va.Args, exec.AsValue(l.Val))
			default:
				return nil
			}
		}
		return f
	}
	return nil
}

// eval evaluates f; ok is false when gonja must evaluate the expression.
func (f *fastExpr) eval(r *exec.Renderer) (v any, ok bool) {
	if f == nil {
		return nil, false
	}
	strict := r.Config.StrictUndefined
	v, found := r.Environment.Context.Get(f.name)
	if f.kind == fastCall {
		h, isHelper := v.(helperFunc)
		st := rendererState(r)
		if !isHelper || st == nil {
			return nil, false
		}
		he, _ := h(nil, whoAreYou).Interface().(*helperEntry)
		if he == nil {
			return nil, false
		}
		out, err := he.call(st, f.va)
		if err != nil {
			return nil, false // let gonja produce the error with its context
		}
		return out, true
	}
	if !found {
		if strict {
			return nil, false
		}
		return nil, true
	}
	for _, attr := range f.attrs {
		switch m := unval(v).(type) {
		case map[string]any:
			if v, found = m[attr]; !found {
				if strict {
					return nil, false
				}
				v = nil
			}
		case namespace:
			if v, found = m[attr]; !found {
				if strict {
					return nil, false
				}
				v = nil
			}
		case nil:
			if strict {
				return nil, false
			}
			v = nil
		default:
			return nil, false
		}
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
