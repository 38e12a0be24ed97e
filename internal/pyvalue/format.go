package pyvalue

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
)

// maxDepth bounds recursion when formatting nested (or cyclic) data.
const maxDepth = 64

// Pair is one key and value of [Pairs].
type Pair struct{ Key, Value any }

// Pairs is a mapping in its own key order (Python dicts keep insertion order).
type Pairs []Pair

// Len is the number of pairs.
func (d Pairs) Len() int { return len(d) }

// Printer formats values as Python does. Convert, when set, is asked first
// about every value and may turn a foreign type into a plain one ([]any,
// [Pairs], map[string]any, a scalar); ok false leaves the value as it is.
type Printer struct {
	Convert func(v any) (plain any, ok bool)
}

// Str is Python's str(v) (None for nil).
func Str(v any) string { return Printer{}.Str(v) }

// Repr is Python's repr(v).
func Repr(v any) string { return Printer{}.Repr(v) }

// Str is Python's str(v): strings as they are, containers as their repr.
func (p Printer) Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return Float(x)
	case int:
		return strconv.Itoa(x)
	case bool:
		return boolText(x)
	}
	var b strings.Builder
	p.write(&b, v, false, 0)
	return b.String()
}

// Repr is Python's repr(v).
func (p Printer) Repr(v any) string {
	var b strings.Builder
	p.write(&b, v, true, 0)
	return b.String()
}

// WriteRepr appends repr(v) to b.
func (p Printer) WriteRepr(b *strings.Builder, v any) { p.write(b, v, true, 0) }

func boolText(x bool) string {
	if x {
		return "True"
	}
	return "False"
}

// Float is Python's repr(float): 1.0, 0.5, 1500000.0, 1e+16, 1e-05, nan, inf.
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	var buf [32]byte
	return string(AppendFloat(buf[:0], f))
}

// AppendFloat appends Float(f) for a finite f.
func AppendFloat(b []byte, f float64) []byte {
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

func (p Printer) write(b *strings.Builder, v any, quote bool, depth int) {
	if depth > maxDepth {
		b.WriteString("...")
		return
	}
	if p.Convert != nil {
		if plain, ok := p.Convert(v); ok {
			v = plain
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case string:
		if quote {
			WriteQuoted(b, x)
		} else {
			b.WriteString(x)
		}
	case bool:
		b.WriteString(boolText(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(Float(x))
	case float32:
		b.WriteString(Float(float64(x)))
	case json.Number:
		b.WriteString(x.String())
	case []any:
		p.writeList(b, x, depth)
	case Pairs:
		p.writePairs(b, x, depth)
	case map[string]any, *Dict:
		p.writeMapping(b, x, depth)
	case error:
		b.WriteString(x.Error())
	default:
		p.writeReflect(b, v, quote, depth)
	}
}

func (p Printer) writeReflect(b *strings.Builder, v any, quote bool, depth int) {
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
		b.WriteString(Float(rv.Float()))
	case reflect.String:
		p.write(b, rv.String(), quote, depth)
	case reflect.Bool:
		p.write(b, rv.Bool(), quote, depth)
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
			p.write(b, rv.Index(i).Interface(), true, depth+1)
		}
		b.WriteByte(']')
	case reflect.Map:
		p.writeReflectMap(b, rv, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			b.WriteString("None")
			return
		}
		p.write(b, rv.Elem().Interface(), quote, depth+1)
	default:
		fmt.Fprint(b, v)
	}
}

func (p Printer) writeReflectMap(b *strings.Builder, rv reflect.Value, depth int) {
	keys := rv.MapKeys()
	labels := make([]string, len(keys))
	for i, k := range keys {
		labels[i] = p.Repr(k.Interface())
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, c int) bool { return labels[idx[a]] < labels[idx[c]] })
	b.WriteByte('{')
	for n, i := range idx {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(labels[i])
		b.WriteString(": ")
		p.write(b, rv.MapIndex(keys[i]).Interface(), true, depth+1)
	}
	b.WriteByte('}')
}

func (p Printer) writeStringMap(b *strings.Builder, m map[string]any, depth int) {
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
		WriteQuoted(b, k)
		b.WriteString(": ")
		p.write(b, m[k], true, depth+1)
	}
	b.WriteByte('}')
}

func (p Printer) writePairs(b *strings.Builder, d Pairs, depth int) {
	b.WriteByte('{')
	for i, kv := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		p.write(b, kv.Key, true, depth+1)
		b.WriteString(": ")
		p.write(b, kv.Value, true, depth+1)
	}
	b.WriteByte('}')
}

// writeMapping writes a map[string]any (keys sorted) or a *Dict (its order).
func (p Printer) writeMapping(b *strings.Builder, v any, depth int) {
	if d, ok := v.(*Dict); ok {
		p.writeDict(b, d, depth)
		return
	}
	p.writeStringMap(b, v.(map[string]any), depth)
}

func (p Printer) writeDict(b *strings.Builder, d *Dict, depth int) {
	if d == nil {
		b.WriteString("None")
		return
	}
	b.WriteByte('{')
	for i, k := range d.Keys() {
		if i > 0 {
			b.WriteString(", ")
		}
		WriteQuoted(b, k)
		b.WriteString(": ")
		p.write(b, d.m[k], true, depth+1)
	}
	b.WriteByte('}')
}

func (p Printer) writeList(b *strings.Builder, xs []any, depth int) {
	b.WriteByte('[')
	for i, e := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		p.write(b, e, true, depth+1)
	}
	b.WriteByte(']')
}

// WriteQuoted writes s as Python's repr of a str: single quotes unless s
// holds a single quote and no double one; \n, \r, \t, \\ and the quote
// escaped; other control and non-printable characters as \xNN, \uNNNN or
// \UNNNNNNNN; invalid UTF-8 bytes as \xNN.
func WriteQuoted(b *strings.Builder, s string) {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	b.WriteByte(q)
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f && c != '\\' && c != q { // printable ASCII stands for itself
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(b, `\x%02x`, s[i])
		} else {
			writeQuotedRune(b, r, q)
		}
		i += size
	}
	b.WriteByte(q)
}

// writeQuotedRune writes r as it stands in a str's repr quoted with q.
func writeQuotedRune(b *strings.Builder, r rune, q byte) {
	switch {
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
}
