package prompt

import (
	"reflect"
	"sort"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// This file reads template data generically: the usual shapes are map[string]any
// and []any, but Go callers may hand typed maps and slices ([]map[string]any,
// map[string]string, ...) and templates build gonja's own Dict and ValuesList.

// namespace is what namespace() returns: the only mapping a template may assign
// attributes of ({% set ns.x = ... %}).
type namespace map[string]any

// unval strips gonja's *exec.Value wrappers.
func unval(v any) any {
	for {
		x, ok := v.(*exec.Value)
		if !ok {
			if dv, ok := v.(*dictView); ok {
				return dv.d
			}
			return v
		}
		if x == nil || x.IsNil() {
			return nil
		}
		v = x.Interface()
	}
}

// isMapping reports whether v is a string-keyed mapping.
func isMapping(v any) bool {
	switch x := unval(v).(type) {
	case map[string]any, namespace, *exec.Dict, exec.Dict, *pyvalue.Dict:
		return true
	case nil:
		return false
	default:
		rv := reflect.ValueOf(x)
		return rv.Kind() == reflect.Map && rv.Type().Key().Kind() == reflect.String
	}
}

// mapGet looks key up in the mapping v.
func mapGet(v any, key string) (any, bool) {
	switch x := unval(v).(type) {
	case map[string]any:
		r, ok := x[key]
		return r, ok
	case namespace:
		r, ok := x[key]
		return unval(r), ok
	case *exec.Dict:
		return dictGet(x, key)
	case exec.Dict:
		return dictGet(&x, key)
	case *pyvalue.Dict:
		return x.Get(key)
	case nil:
		return nil, false
	default:
		rv := reflect.ValueOf(x)
		if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		r := rv.MapIndex(reflect.ValueOf(key).Convert(rv.Type().Key()))
		if !r.IsValid() {
			return nil, false
		}
		return r.Interface(), true
	}
}

func dictGet(d *exec.Dict, key string) (any, bool) {
	for _, p := range d.Pairs {
		if p.Key.String() == key {
			return unval(p.Value), true
		}
	}
	return nil, false
}

// mapKeys returns the keys of the mapping v: sorted for Go maps (they have no
// order), in their own order for gonja's dicts and a *pyvalue.Dict.
func mapKeys(v any) []string {
	var keys []string
	switch x := unval(v).(type) {
	case *pyvalue.Dict:
		return append([]string(nil), x.Keys()...)
	case map[string]any:
		keys = make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
	case namespace:
		for k := range x {
			keys = append(keys, k)
		}
	case *exec.Dict:
		for _, p := range x.Pairs {
			keys = append(keys, p.Key.String())
		}
		return keys
	case exec.Dict:
		for _, p := range x.Pairs {
			keys = append(keys, p.Key.String())
		}
		return keys
	case nil:
		return nil
	default:
		rv := reflect.ValueOf(x)
		if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
			return nil
		}
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
	}
	sort.Strings(keys)
	return keys
}

// isList reports whether v is a sequence (not a string).
func isList(v any) bool {
	switch x := unval(v).(type) {
	case []any, exec.ValuesList:
		return true
	case nil, string, []byte:
		return false
	default:
		k := reflect.ValueOf(x).Kind()
		return k == reflect.Slice || k == reflect.Array
	}
}

// listLen is the length of the sequence v, 0 for anything else.
func listLen(v any) int {
	switch x := unval(v).(type) {
	case []any:
		return len(x)
	case exec.ValuesList:
		return len(x)
	case nil, string, []byte:
		return 0
	default:
		rv := reflect.ValueOf(x)
		if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			return rv.Len()
		}
		return 0
	}
}

// listAt returns element i of the sequence v (negative i counts from the end).
func listAt(v any, i int) (any, bool) {
	n := listLen(v)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, false
	}
	switch x := unval(v).(type) {
	case []any:
		return x[i], true
	case exec.ValuesList:
		return unval(x[i]), true
	default:
		return reflect.ValueOf(x).Index(i).Interface(), true
	}
}

// toList copies the sequence v into a []any.
func toList(v any) []any {
	n := listLen(v)
	out := make([]any, n)
	for i := range n {
		out[i], _ = listAt(v, i)
	}
	return out
}

// truthy is Python/Jinja truthiness (internal/pyvalue) of a template value.
func truthy(v any) bool {
	switch x := unval(v).(type) {
	case exec.ValuesList:
		return len(x) > 0
	case *exec.Dict:
		return len(x.Pairs) > 0
	case exec.Dict:
		return len(x.Pairs) > 0
	case namespace:
		return len(x) > 0
	default:
		return pyvalue.Truthy(x)
	}
}

// Truthy reports whether v is true the way Jinja (Python) sees it: nil, false,
// zero numbers and empty strings, lists and mappings are false; everything
// else is true. Use it on the result of [Expr.Eval] or [Template.Eval].
func Truthy(v any) bool { return truthy(v) }

// goValue converts what a template evaluated to into plain Go values: lists the
// template built become []any, its dict literals map[string]any; data values are
// returned as they are.
func goValue(v any) any {
	switch x := unval(v).(type) {
	case exec.ValuesList:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = goValue(e)
		}
		return out
	case *exec.Dict:
		return dictToMap(x)
	case exec.Dict:
		return dictToMap(&x)
	case namespace:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = goValue(e)
		}
		return out
	case [2]*exec.Value:
		return []any{goValue(x[0]), goValue(x[1])}
	case *pyvalue.Dict:
		return goValue(x.Map())
	case map[string]any:
		for _, e := range x {
			if _, ok := e.(*dictView); ok {
				return plainMap(x)
			}
		}
		return x
	case []any:
		for i, e := range x {
			if g := goValue(e); !sameValue(g, e) {
				out := make([]any, len(x))
				copy(out, x[:i])
				for j := i; j < len(x); j++ {
					out[j] = goValue(x[j])
				}
				return out
			}
		}
		return x
	default:
		return x
	}
}

// sameValue reports whether goValue left e unchanged (only wrappers change).
func sameValue(g, e any) bool {
	switch e.(type) {
	case *exec.Value, exec.ValuesList, *exec.Dict, exec.Dict, namespace, [2]*exec.Value, *dictView:
		return false
	case []any:
		gl, ok := g.([]any)
		el := e.([]any)
		return ok && len(gl) == len(el) && (len(el) == 0 || &gl[0] == &el[0])
	}
	return true
}

// plainMap is m with the ordered mappings inside it made plain maps.
func plainMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, e := range m {
		out[k] = goValue(e)
	}
	return out
}

func dictToMap(d *exec.Dict) map[string]any {
	out := make(map[string]any, len(d.Pairs))
	for _, p := range d.Pairs {
		out[p.Key.String()] = goValue(p.Value)
	}
	return out
}
