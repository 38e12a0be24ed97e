package values

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Text is cogloop's one value-to-text conversion, a deterministic counterpart
// of Python's str(): strings as they are, booleans as true/false, numbers in
// their shortest form (floats as JSON writes them), nil as "", and mappings
// and lists as compact JSON with sorted keys and no HTML escaping (OrKa scans
// the Python repr of a mapping; the JSON form holds the same keys and
// values); what JSON cannot hold (NaN, channels, cycles) is written
// structurally to a bounded depth.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return floatText(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case json.Number:
		return x.String()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err == nil {
		return strings.TrimSuffix(buf.String(), "\n")
	}
	var b strings.Builder
	writeText(&b, reflect.ValueOf(v), 0)
	return b.String()
}

// writeText renders what JSON cannot (NaN, channels, cycles): maps with sorted
// keys and lists to a bounded depth, scalars with fmt, anything else by type.
func writeText(b *strings.Builder, v reflect.Value, depth int) {
	if depth > 32 {
		b.WriteString("…")
		return
	}
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			b.WriteString("null")
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("null")
	case reflect.Map:
		keys, names := SortedKeys(v, func(k reflect.Value) string { return fmt.Sprint(k.Interface()) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(names[i]))
			b.WriteByte(':')
			writeText(b, v.MapIndex(k), depth+1)
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			writeText(b, v.Index(i), depth+1)
		}
		b.WriteByte(']')
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		fmt.Fprint(b, v.Interface())
	default:
		fmt.Fprintf(b, "<%s>", v.Type())
	}
}

// floatText writes a float as JSON does: plain decimals from 1e-6 to 1e21,
// exponent form outside; NaN and infinities as Go spells them.
func floatText(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// SortedKeys returns the keys of the map m and their labels, in the order of
// the labels (keys with equal labels keep reflect's order).
func SortedKeys(m reflect.Value, label func(reflect.Value) string) ([]reflect.Value, []string) {
	keys := m.MapKeys()
	labels := make([]string, len(keys))
	for i, k := range keys {
		labels[i] = label(k)
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, c int) bool { return labels[idx[a]] < labels[idx[c]] })
	outK, outL := make([]reflect.Value, len(keys)), make([]string, len(keys))
	for n, i := range idx {
		outK[n], outL[n] = keys[i], labels[i]
	}
	return outK, outL
}
