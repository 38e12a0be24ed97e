package prompt

import (
	"errors"
	"maps"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/nikolalohinski/gonja/v2/builtins/methods"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// Mappings in their own key order: an agent's output reaches templates in
// its own key order (OrKa's order of its type's output, a JSON reply's
// order), as a view ([View]) of a *pyvalue.Dict that gonja reads through its
// attribute and item interfaces, and that the rest of this package unwraps
// (unval) and reads like a map (values.go, loops.go, pyjson.go). It prints,
// iterates, lists its keys, values and items, and encodes in its order. gonja's
// builtin filters and tests get it as one of gonja's ordered dicts.

// View returns v as templates read it, with the mappings o describes in o's
// key order (see [pyvalue.Order]; keys o does not list follow, sorted). v is
// not changed; the view is read-only and may be shared by any number of
// renders, so callers make it once per value.
func View(v any, o *pyvalue.Order) any { return pyvalue.OrderedAs(v, o, viewOf) }

func viewOf(m map[string]any, order []string) any {
	v := &dictView{}
	v.own.Init(m, order)
	v.d = &v.own
	return v
}

// viewed is v as gonja must see it: an ordered mapping unwrapped by unval
// wrapped again.
func viewed(v any) any {
	if d, ok := v.(*pyvalue.Dict); ok {
		return &dictView{d: d}
	}
	return v
}

// dictView is a *pyvalue.Dict as gonja sees it: d, which is &own when the
// view made its Dict (one allocation for both).
type dictView struct {
	d   *pyvalue.Dict
	own pyvalue.Dict
}

var (
	_ exec.AttributeGetter = (*dictView)(nil)
	_ exec.ItemGetter      = (*dictView)(nil)
)

// GetAttribute is d.name: the value under name, else the dict method name.
func (v *dictView) GetAttribute(name string) (*exec.Value, bool) {
	if x, ok := v.d.Get(name); ok {
		return toValue(x), true
	}
	if m, ok := dictMethod(v.d, name); ok {
		return m, true
	}
	return exec.AsValue(nil), false
}

// GetItem is d[key].
func (v *dictView) GetItem(key any) (*exec.Value, bool) {
	if k, ok := key.(string); ok {
		if x, ok := v.d.Get(k); ok {
			return toValue(x), true
		}
	}
	return exec.AsValue(nil), false
}

// MarshalJSON encodes the mapping in its order.
func (v *dictView) MarshalJSON() ([]byte, error) { return v.d.MarshalJSON() }

// dictMethod returns d.name as a bound method when name is a dict method:
// keys, values and items in d's order, the others as gonja's dict methods on
// a copy of d's map (a method never changes data, as gonja's on a map).
func dictMethod(d *pyvalue.Dict, name string) (*exec.Value, bool) {
	switch name {
	case "keys", "values", "items":
		return exec.AsValue(func(va *exec.VarArgs) (any, error) {
			if err := va.Take(); err != nil {
				return nil, exec.ErrInvalidCall(err)
			}
			keys := d.Keys()
			out := make([]any, len(keys))
			for i, k := range keys {
				v, _ := d.Get(k)
				switch name {
				case "keys":
					out[i] = k
				case "values":
					out[i] = v
				default:
					out[i] = []any{k, v} // as gonja's items() of a map
				}
			}
			return out, nil
		}), true
	}
	m, ok := methods.All.Dict.Get(name)
	if !ok {
		return nil, false
	}
	return exec.AsValue(func(va *exec.VarArgs) (any, error) {
		return m(maps.Clone(d.Map()), exec.AsValue(d.Map()), va)
	}), true
}

// gonjaDict is d as one of gonja's ordered dicts.
func gonjaDict(d *pyvalue.Dict) *exec.Dict {
	keys := d.Keys()
	out := &exec.Dict{Pairs: make([]*exec.Pair, len(keys))}
	for i, k := range keys {
		v, _ := d.Get(k)
		out.Pairs[i] = &exec.Pair{Key: exec.AsValue(k), Value: toValue(v)}
	}
	return out
}

// gonjaView returns v for gonja's builtin filter or test name: an ordered
// mapping as one of gonja's dicts, or as its map for the filters that read
// only Go maps (dictsort, pprint: both sort the keys anyway).
func gonjaView(v *exec.Value, name string) *exec.Value {
	if v == nil {
		return v
	}
	d, ok := unval(v).(*pyvalue.Dict)
	if !ok || d == nil {
		return v
	}
	if name == "dictsort" || name == "pprint" {
		return exec.AsValue(goValue(d))
	}
	return exec.AsValue(gonjaDict(d))
}

// gonjaArgs is params with its ordered mappings as gonja's dicts ("k" in
// mapping passes the mapping as the test's argument).
func gonjaArgs(params *exec.VarArgs, name string) *exec.VarArgs {
	if params == nil {
		return params
	}
	var out *exec.VarArgs
	for i, a := range params.Args {
		if g := gonjaView(a, name); g != a {
			if out == nil {
				out = &exec.VarArgs{Args: append([]*exec.Value(nil), params.Args...), KwArgs: params.KwArgs}
			}
			out.Args[i] = g
		}
	}
	if out == nil {
		return params
	}
	return out
}

// testNames are the names of gonja's builtin tests.
var testNames = []string{
	"boolean", "callable", "defined", "divisibleby", "eq", "equalto", "==", "escaped", "even",
	"false", "filter", "float", "ge", ">=", "gt", "greaterthan", ">", "in", "integer", "iterable",
	"le", "<=", "lower", "lt", "lessthan", "<", "mapping", "ne", "!=", "none", "number", "odd",
	"sameas", "sequence", "string", "test", "true", "undefined", "upper",
}

// guardTests wraps gonja's builtin tests so that they see an ordered mapping
// as a dict.
func guardTests(set *exec.TestSet) *exec.TestSet {
	m := map[string]exec.TestFunction{}
	for _, name := range testNames {
		t, ok := set.Get(name)
		if !ok {
			continue
		}
		switch f := t.(type) {
		case func(*exec.Context, *exec.Value, *exec.VarArgs) (bool, error):
			m[name] = func(ctx *exec.Context, in *exec.Value, params *exec.VarArgs) (bool, error) {
				return f(ctx, gonjaView(in, name), gonjaArgs(params, name))
			}
		case func(*exec.Evaluator, *exec.Value, *exec.VarArgs) (bool, error):
			m[name] = func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) (bool, error) {
				return f(e, gonjaView(in, name), gonjaArgs(params, name))
			}
		default:
			m[name] = t
		}
	}
	if len(m) == 0 {
		panic(errors.New("prompt: gonja has no tests")) // a gonja upgrade changed its test set
	}
	return exec.NewTestSet(m)
}

// ReadsInput reports whether t names the input variable itself, not only
// through helpers such as get_input(): whether the mapping input holds can
// reach the output whole (a caller may then hand it as a [View]).
func (t *Template) ReadsInput() bool {
	for _, n := range t.analyze().names {
		if n.Kind == NameVar && n.Name == "input" {
			return true
		}
	}
	return false
}

// previousValue is what the variable previous_outputs holds: Previous, in
// run order when PreviousOrder lists it (as OrKa's dict of outputs prints).
func (d *Data) previousValue() any {
	switch {
	case d.Previous == nil:
		return emptyOutputs
	case len(d.PreviousOrder) > 0:
		return viewOf(d.Previous, d.PreviousOrder)
	}
	return d.Previous
}
