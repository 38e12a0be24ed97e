package prompt

import (
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// py formats values as Python does (internal/pyvalue), with gonja's values
// (exec.Value, its lists and dicts, a namespace) read as the plain values
// they hold.
var py = pyvalue.Printer{Convert: gonjaPlain}

// gonjaPlain turns gonja's container types into pyvalue's: a dict keeps its
// own key order (pyvalue.Pairs), a (key, value) pair is a tuple.
func gonjaPlain(v any) (any, bool) {
	switch x := v.(type) {
	case *exec.Value:
		if x == nil || x.IsNil() {
			return nil, true
		}
		if dv, ok := x.Interface().(*dictView); ok {
			return dv.d, true
		}
		return x.Interface(), true
	case exec.ValuesList:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out, true
	case *exec.Dict:
		return dictPairs(x), true
	case exec.Dict:
		return dictPairs(&x), true
	case [2]*exec.Value:
		return tuple{x[0], x[1]}, true
	case namespace:
		return map[string]any(x), true
	case *dictView:
		return x.d, true
	}
	return nil, false
}

func dictPairs(d *exec.Dict) pyvalue.Pairs {
	out := make(pyvalue.Pairs, len(d.Pairs))
	for i, p := range d.Pairs {
		out[i] = pyvalue.Pair{Key: p.Key, Value: p.Value}
	}
	return out
}

// tuple is a pair as Python's repr writes it: (a, b).
type tuple [2]any

func (t tuple) String() string {
	return "(" + py.Repr(t[0]) + ", " + py.Repr(t[1]) + ")"
}

// pyStr formats v the way Python's str() does, except that None renders as ""
// (in templates an undefined name and None are the same nil, and both render empty).
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case *exec.Value:
		if x == nil || x.IsNil() {
			return ""
		}
		return pyStr(x.Interface())
	}
	return py.Str(v)
}

// pyRepr formats v the way Python's repr() does (strings quoted, None as None).
func pyRepr(v any) string { return py.Repr(v) }

// pyFloat formats f like Python's repr(float): 1.0, 0.5, 1e+16, 1e-05, nan, inf.
func pyFloat(f float64) string { return pyvalue.Float(f) }

// pyNumber reads v as Python's float(v) does (pyvalue.Number).
func pyNumber(v any) (float64, bool) { return pyvalue.Number(v) }

// maxReprDepth bounds recursion when converting nested (or cyclic) data.
const maxReprDepth = 64
