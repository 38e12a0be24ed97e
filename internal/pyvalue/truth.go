package pyvalue

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// Truthy is Python's truth value: None, False, zero numbers and empty
// strings, lists and mappings are false; everything else is true.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case interface{ Len() int }: // Pairs, *Dict
		return x.Len() > 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array, reflect.Chan:
		return rv.Len() > 0
	case reflect.Pointer, reflect.Interface, reflect.Func:
		return !rv.IsNil()
	case reflect.Bool:
		return rv.Bool()
	}
	return true
}

// ParseFloat is Python's float(s) on a string: surrounding whitespace
// ignored, digits with single underscores between them, a sign, "inf",
// "infinity" and "nan" in any case; ok is false where Python raises
// ValueError (hexadecimal, empty, "1e", embedded spaces).
func ParseFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 400 {
		return 0, false
	}
	s = asciiDigits(s)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	neg := strings.HasPrefix(s, "-")
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	if !validDecimal(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return f, true // Python gives inf (or 0.0) where the value is out of range
		}
		return 0, false
	}
	return f, true
}

// validDecimal reports whether s is digits[.digits][e[sign]digits], with at
// least one digit in the mantissa and underscores only between digits.
func validDecimal(s string) bool {
	i, mant := digits(s, 0)
	if i < len(s) && s[i] == '.' {
		var frac int
		i, frac = digits(s, i+1)
		mant += frac
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		var exp int
		if i, exp = digits(s, i); exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// digits reads a run of digits from i with single underscores between digits;
// it returns where the run ends and how many digits it held (0 when an
// underscore is misplaced).
func digits(s string, i int) (int, int) {
	n := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			n++
			i++
		case c == '_' && n > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i++
		default:
			return i, n
		}
	}
	return i, n
}

// asciiDigits replaces Unicode decimal digits (category Nd, which Python's
// float() reads) by ASCII ones. Nd digits come in runs of ten from zero, so a
// digit's value is its distance from the start of its run, modulo ten.
func asciiDigits(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 && unicode.Is(unicode.Nd, r) {
			k := 0
			for unicode.Is(unicode.Nd, r-rune(k)-1) && k < 100 {
				k++
			}
			r = '0' + rune(k%10)
		}
		b.WriteRune(r)
	}
	return b.String()
}
