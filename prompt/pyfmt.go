package prompt

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/values"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// maxReprDepth bounds recursion when formatting nested (or cyclic) data.
const maxReprDepth = 64

// pyStr formats v the way Python's str() does, except that None renders as ""
// (in templates an undefined name and None are the same nil, and both render empty).
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case float64:
		return pyFloat(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	case *exec.Value:
		if x == nil || x.IsNil() {
			return ""
		}
		return pyStr(x.Interface())
	}
	var b strings.Builder
	writePy(&b, v, false, 0)
	return b.String()
}

// pyRepr formats v the way Python's repr() does (strings quoted, None as None).
func pyRepr(v any) string {
	var b strings.Builder
	writePy(&b, v, true, 0)
	return b.String()
}

// pyFloat formats f like Python's repr(float): 1.0, 0.5, 1e+16, 1e-05, nan, inf.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	var buf [32]byte
	return string(appendPyFloat(buf[:0], f))
}

// appendPyFloat appends pyFloat(f) for a finite f.
func appendPyFloat(b []byte, f float64) []byte {
	if out, ok := appendShortDecimal(b, f); ok {
		return out
	}
	abs := math.Abs(f)
	if abs != 0 && (abs >= 1e16 || abs < 1e-4) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}

// pow10 are the scales appendShortDecimal tries.
var pow10 = [...]float64{1, 10, 100, 1000, 10000}

// appendShortDecimal appends f as Python's repr writes it when f is a decimal
// of at most four places below 1e9 in magnitude (scores, durations): the
// fewest places k whose integer n = f·10^k gives f back as n / 10^k. The
// division is correctly rounded, so that is the float the k-place decimal
// parses to, and at these magnitudes no other k-place decimal is that close
// to f: it is the digits strconv's shortest form gives, without its search.
// ok is false for anything else (and for zero, whose sign strconv keeps).
func appendShortDecimal(b []byte, f float64) ([]byte, bool) {
	if f == 0 || !(f > -1e9 && f < 1e9) {
		return b, false
	}
	for k, p := range pow10 {
		n := math.Round(f * p)
		if n/p != f {
			continue
		}
		i := int64(n)
		if i < 0 {
			b = append(b, '-')
			i = -i
		}
		scale := int64(p)
		b = strconv.AppendInt(b, i/scale, 10)
		b = append(b, '.')
		if k == 0 {
			return append(b, '0'), true
		}
		frac := i % scale
		for d := scale / 10; d > 0; d /= 10 {
			b = append(b, byte('0'+frac/d%10))
		}
		return b, true
	}
	return b, false
}

func writePy(b *strings.Builder, v any, quote bool, depth int) {
	if depth > maxReprDepth {
		b.WriteString("...")
		return
	}
	switch x := v.(type) {
	case nil:
		if quote {
			b.WriteString("None")
		}
		return
	case string:
		if quote {
			writeQuoted(b, x)
		} else {
			b.WriteString(x)
		}
		return
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
		return
	case int:
		b.WriteString(strconv.Itoa(x))
		return
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
		return
	case float64:
		b.WriteString(pyFloat(x))
		return
	case float32:
		b.WriteString(pyFloat(float64(x)))
		return
	case json.Number:
		b.WriteString(x.String())
		return
	case *exec.Value:
		if x == nil || x.IsNil() {
			writePy(b, nil, quote, depth)
			return
		}
		writePy(b, x.Interface(), quote, depth)
		return
	case exec.ValuesList:
		writeList(b, x, depth)
		return
	case *exec.Dict:
		writeDict(b, x, depth)
		return
	case exec.Dict:
		writeDict(b, &x, depth)
		return
	case [2]*exec.Value:
		b.WriteByte('(')
		writePy(b, x[0], true, depth+1)
		b.WriteString(", ")
		writePy(b, x[1], true, depth+1)
		b.WriteByte(')')
		return
	case []any:
		writeList(b, x, depth)
		return
	case map[string]any:
		writeStringMap(b, x, depth)
		return
	case namespace:
		writeStringMap(b, x, depth)
		return
	case error:
		b.WriteString(x.Error())
		return
	}
	rv := reflect.ValueOf(v)
	if st, ok := v.(fmt.Stringer); ok && rv.Kind() != reflect.String {
		b.WriteString(st.String())
		return
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(pyFloat(rv.Float()))
	case reflect.String:
		writePy(b, rv.String(), quote, depth)
	case reflect.Bool:
		writePy(b, rv.Bool(), quote, depth)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, rv.Index(i).Interface(), true, depth+1)
		}
		b.WriteByte(']')
	case reflect.Map:
		keys, labels := values.SortedKeys(rv, func(k reflect.Value) string { return pyRepr(k.Interface()) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(labels[i])
			b.WriteString(": ")
			writePy(b, rv.MapIndex(k).Interface(), true, depth+1)
		}
		b.WriteByte('}')
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			writePy(b, nil, quote, depth)
			return
		}
		writePy(b, rv.Elem().Interface(), quote, depth+1)
	default:
		fmt.Fprint(b, v)
	}
}

func writeStringMap(b *strings.Builder, m map[string]any, depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeQuoted(b, k)
		b.WriteString(": ")
		writePy(b, m[k], true, depth+1)
	}
	b.WriteByte('}')
}

func writeDict(b *strings.Builder, d *exec.Dict, depth int) {
	b.WriteByte('{')
	for i, p := range d.Pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		writePy(b, p.Key, true, depth+1)
		b.WriteString(": ")
		writePy(b, p.Value, true, depth+1)
	}
	b.WriteByte('}')
}

// writeQuoted writes s as Python's repr of a str.
func writeQuoted(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x80 || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
		i += size
	}
	b.WriteByte(q)
}

// writeList writes a list the way Python's repr does: [a, b].
func writeList[E any](b *strings.Builder, xs []E, depth int) {
	b.WriteByte('[')
	for i, e := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		writePy(b, e, true, depth+1)
	}
	b.WriteByte(']')
}
