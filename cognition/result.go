package cognition

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

// Result is one agent's result in an iteration, in OrKa's shape: Value is a
// string, or a map[string]any such as {"response": …, "confidence": …,
// "internal_reasoning": …} or an error record {"result": nil, "status": "error",
// "error": …}. Numbers (and numeric strings) are read by direct_key strategies;
// other maps with string keys are accepted and read like map[string]any.
//
// An iteration is a []Result in execution order. OrKa keys the iteration by agent
// id, so a repeated id keeps its first position and takes the last value.
type Result struct {
	ID    string
	Value any
}

// textFields are the mapping fields scanned for text, in OrKa's order.
var textFields = [...]string{"response", "result", "output", "data"}

// dedupe applies OrKa's dict semantics to repeated ids: first position, last
// value. It returns results itself when no id repeats.
func dedupe(results []Result) []Result {
	dup := false
	for i := 1; i < len(results) && !dup; i++ {
		for j := 0; j < i; j++ {
			if results[i].ID == results[j].ID {
				dup = true
				break
			}
		}
	}
	if !dup {
		return results
	}
	out := make([]Result, 0, len(results))
	pos := make(map[string]int, len(results))
	for _, r := range results {
		if i, ok := pos[r.ID]; ok {
			out[i].Value = r.Value
			continue
		}
		pos[r.ID] = len(out)
		out = append(out, r)
	}
	return out
}

// find returns the index of id in results, or -1.
func find(results []Result, id string) int {
	for i := range results {
		if results[i].ID == id {
			return i
		}
	}
	return -1
}

// textOf is cogloop's deterministic counterpart of Python's str(): strings as
// they are, numbers in their shortest form, nil as "", and mappings and lists as
// compact JSON with sorted keys (OrKa scans the Python repr of a mapping; the
// JSON form holds the same keys and values).
func textOf(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
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
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = fmt.Sprint(k.Interface())
		}
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, c int) bool { return names[idx[a]] < names[idx[c]] })
		b.WriteByte('{')
		for n, i := range idx {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(names[i]))
			b.WriteByte(':')
			writeText(b, v.MapIndex(keys[i]), depth+1)
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

// number reads a numeric result value as a score under scale: Go numbers (not
// bool) as bare numbers, strings and json.Number as texts ([ParseScore]'s
// forms). nil when v is no number.
func number(v any, scale int) *reading {
	switch x := v.(type) {
	case string:
		return parseReading(x, scale)
	case json.Number:
		return parseReading(x.String(), scale)
	}
	f, ok := rawNumber(v)
	if !ok {
		return nil
	}
	r := bare(f, scale)
	return &r
}

// rawNumber returns a finite Go number (not bool, not a string) as float64.
func rawNumber(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
