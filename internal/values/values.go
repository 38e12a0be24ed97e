package values

import "reflect"

// AsMap returns v as a map[string]any when it is a non-nil map with string
// keys of any value type (other map types are copied).
func AsMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, m != nil
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String || rv.IsNil() {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

// List copies xs into a fresh []any (empty, not nil, for no xs): the list
// form that templates and outputs hold.
func List[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
