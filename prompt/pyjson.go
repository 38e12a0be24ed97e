package prompt

import (
	"encoding/json"
	"fmt"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// jsonStyle selects separators: compact (tojson) or Python json.dumps' default
// ", " / ": " (to_json_string).
type jsonStyle int

const (
	jsonCompact jsonStyle = iota
	jsonPython
)

// pyJSON encodes v as JSON the way Python's json.dumps(v, ensure_ascii=False)
// does: non-ASCII text kept, floats in Python's form (1.0), NaN/Infinity allowed.
// Mapping keys are sorted (Go maps have no order). indent > 0 pretty-prints.
func pyJSON(v any, style jsonStyle, indent int) (string, error) {
	var b strings.Builder
	enc := jsonEncoder{b: &b, style: style, indent: indent}
	if err := enc.value(v, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

type jsonEncoder struct {
	b      *strings.Builder
	style  jsonStyle
	indent int
}

func (j *jsonEncoder) sep(comma bool) {
	switch {
	case comma && j.indent > 0:
		j.b.WriteByte(',')
	case comma && j.style == jsonPython:
		j.b.WriteString(", ")
	case comma:
		j.b.WriteByte(',')
	case j.indent > 0 || j.style == jsonPython:
		j.b.WriteString(": ")
	default:
		j.b.WriteByte(':')
	}
}

func (j *jsonEncoder) newline(depth int) {
	if j.indent > 0 {
		j.b.WriteByte('\n')
		j.b.WriteString(strings.Repeat(" ", j.indent*depth))
	}
}

func (j *jsonEncoder) value(v any, depth int) error {
	if depth > maxReprDepth {
		return fmt.Errorf("value nested more than %d levels deep (or circular)", maxReprDepth)
	}
	switch x := v.(type) {
	case nil:
		j.b.WriteString("null")
		return nil
	case *exec.Value:
		if x == nil || x.IsNil() {
			j.b.WriteString("null")
			return nil
		}
		return j.value(x.Interface(), depth)
	case string:
		jsonString(j.b, x)
		return nil
	case bool:
		j.b.WriteString(strconv.FormatBool(x))
		return nil
	case float64:
		j.float(x)
		return nil
	case float32:
		j.float(float64(x))
		return nil
	case json.Number:
		j.b.WriteString(x.String())
		return nil
	case exec.ValuesList:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = e
		}
		return j.list(items, depth)
	case []any:
		return j.list(x, depth)
	case *exec.Dict, exec.Dict, map[string]any, namespace, *pyvalue.Dict, *dictView:
		return j.mapping(v, depth)
	case json.Marshaler:
		raw, err := x.MarshalJSON()
		if err != nil {
			return err
		}
		j.b.Write(raw)
		return nil
	case error:
		jsonString(j.b, x.Error())
		return nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		j.b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		j.b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		j.float(rv.Float())
	case reflect.String:
		jsonString(j.b, rv.String())
	case reflect.Bool:
		j.b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			j.b.WriteString("[]")
			return nil
		}
		return j.list(toList(v), depth)
	case reflect.Map:
		return j.mapping(v, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			j.b.WriteString("null")
			return nil
		}
		return j.value(rv.Elem().Interface(), depth+1)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("cannot encode %T as JSON", v)
		}
		j.b.Write(raw)
	}
	return nil
}

func (j *jsonEncoder) float(f float64) {
	switch {
	case math.IsNaN(f):
		j.b.WriteString("NaN")
	case math.IsInf(f, 1):
		j.b.WriteString("Infinity")
	case math.IsInf(f, -1):
		j.b.WriteString("-Infinity")
	default:
		j.b.WriteString(pyFloat(f))
	}
}

func (j *jsonEncoder) list(items []any, depth int) error {
	j.b.WriteByte('[')
	for i, e := range items {
		if i > 0 {
			j.sep(true)
		}
		j.newline(depth + 1)
		if err := j.value(e, depth+1); err != nil {
			return err
		}
	}
	if len(items) > 0 {
		j.newline(depth)
	}
	j.b.WriteByte(']')
	return nil
}

func (j *jsonEncoder) mapping(m any, depth int) error {
	var keys []string
	switch x := unval(m).(type) {
	case *exec.Dict, exec.Dict:
		keys = mapKeys(x) // a template's dict literal keeps its order
	default:
		keys = mapKeys(x)
		if keys == nil && !isMapping(x) {
			// a map with non-string keys: Python turns the keys into strings
			rv := reflect.ValueOf(x)
			pairs := map[string]any{}
			for _, k := range rv.MapKeys() {
				pairs[pyStr(k.Interface())] = rv.MapIndex(k).Interface()
			}
			return j.mapping(pairs, depth)
		}
	}
	j.b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			j.sep(true)
		}
		j.newline(depth + 1)
		jsonString(j.b, k)
		j.sep(false)
		v, _ := mapGet(m, k)
		if err := j.value(v, depth+1); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		j.newline(depth)
	}
	j.b.WriteByte('}')
	return nil
}

// jsonString writes s as a JSON string, escaping only what JSON requires
// (Python's ensure_ascii=False).
func jsonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 {
					fmt.Fprintf(b, `\u%04x`, c)
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}
