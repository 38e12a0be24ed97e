package pyvalue

import (
	"encoding/json"
	"math"
)

// Number is the project's one reader of a decoded value as a number, as
// Python's float(v) reads it: Go numbers of every size (float64, float32,
// int…int64, uint…uint64), json.Number, and text by [ParseFloat]
// (surrounding white space ignored, "1_000", "inf", "nan"). ok is false for
// everything else, bool included (a True score is no number), and for named
// numeric types.
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case string:
		return ParseFloat(x)
	case json.Number:
		return ParseFloat(string(x))
	case float32:
		return float64(x), true
	case int8:
		return float64(x), true
	case int16:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return unsigned(v)
}

func unsigned(v any) (float64, bool) {
	switch x := v.(type) {
	case uint:
		return float64(x), true
	case uint8:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

// Finite is [Number] without NaN and the infinities: the reader for a value
// that is compared or weighed (a score, a condition's operand).
func Finite(v any) (float64, bool) {
	f, ok := Number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
