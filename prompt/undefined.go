package prompt

import (
	"strings"

	"github.com/nikolalohinski/gonja/v2/nodes"
)

// Undefined lists the variables e reads that neither d nor the environment
// (helpers, range, namespace, ...) defines, in the order they are read. A
// name the expression guards — tests with "is defined" or "is undefined", or
// gives a default ("x | default(…)") — is not counted anywhere in it (so
// "x if x is defined else 0" is fine); none (Jinja's literal) is defined.
//
// Rendering treats an undefined name as empty, as OrKa does; a caller for
// which a value that cannot be read is an error (a loop's stop condition)
// asks Undefined before [Expr.Eval].
func (e *Expr) Undefined(d Data) []string {
	var out []string
	seen := map[string]bool{}
	walkNames(e.t.single.n, func(name string, guarded bool) {
		if guarded {
			seen[name] = true
		}
	})
	walkNames(e.t.single.n, func(name string, guarded bool) {
		if seen[name] {
			return
		}
		seen[name] = true
		if _, ok := d.bound(name); ok {
			return
		}
		if e.t.env.Context.Has(name) {
			return
		}
		out = append(out, name)
	})
	return out
}

// walkNames calls fn for every variable name an expression tree reads: the
// names in it that are not attributes, filters, tests or keyword names.
// guarded is true for a bare name tested with is defined / is undefined or
// filtered with default.
func walkNames(n nodes.Node, fn func(name string, guarded bool)) {
	var walk func(n nodes.Node)
	walkAll := func(list []nodes.Expression) {
		for _, x := range list {
			walk(x)
		}
	}
	walkKw := func(m map[string]nodes.Expression) {
		for _, x := range m {
			walk(x)
		}
	}
	walk = func(n nodes.Node) {
		switch x := n.(type) {
		case nil:
		case *nodes.Output:
			walk(x.Expression)
			walk(x.Condition)
			walk(x.Alternative)
		case *nodes.Name:
			if x.Name != nil && x.Name.Val != "none" && !strings.HasPrefix(x.Name.Val, "\x00") {
				fn(x.Name.Val, false)
			}
		case *nodes.FilteredExpression:
			name, bare := x.Expression.(*nodes.Name)
			if bare && len(x.Filters) > 0 && (x.Filters[0].Name == "default" || x.Filters[0].Name == "d") {
				fn(name.Name.Val, true)
			} else {
				walk(x.Expression)
			}
			for _, f := range x.Filters {
				walkAll(f.Args)
				walkKw(f.Kwargs)
			}
		case *nodes.TestExpression:
			name, bare := x.Expression.(*nodes.Name)
			if bare && x.Test != nil && (x.Test.Name == "defined" || x.Test.Name == "undefined") {
				fn(name.Name.Val, true)
			} else {
				walk(x.Expression)
			}
			if x.Test != nil {
				walkAll(x.Test.Args)
				walkKw(x.Test.Kwargs)
			}
		case *nodes.List:
			walkAll(x.Val)
		case *nodes.Tuple:
			walkAll(x.Val)
		case *nodes.Dict:
			for _, p := range x.Pairs {
				walk(p.Key)
				walk(p.Value)
			}
		case *nodes.Pair:
			walk(x.Key)
			walk(x.Value)
		case *nodes.Call:
			walk(x.Func)
			walkAll(x.Args)
			walkKw(x.Kwargs)
		case *nodes.GetItem:
			walk(x.Node)
			walk(x.Arg)
		case *nodes.GetSlice:
			walk(x.Node)
			walk(x.Start)
			walk(x.End)
			walk(x.Step)
		case *nodes.GetAttribute:
			walk(x.Node)
		case *nodes.Negation:
			walk(x.Term)
		case *nodes.UnaryExpression:
			walk(x.Term)
		case *nodes.BinaryExpression:
			walk(x.Left)
			walk(x.Right)
		}
	}
	walk(n)
}

// Message is the error's cause in plain words, without the template name and
// line ("cannot call method "lower" of an undefined value"), for callers that
// say where the template is themselves.
func (e *RenderError) Message() string { return cleanMessage(e.Err) }
