package modeltext

import (
	"math"
	"reflect"
	"strconv"
)

// ParseFloat is strconv.ParseFloat without NaN and infinities.
func ParseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// Number returns a finite Go number (a float, int or uint of any size; not
// bool, not a string, not a named numeric type) as float64.
func Number(v any) (float64, bool) {
	var f float64
	switch v.(type) {
	case float64, float32:
		f = reflect.ValueOf(v).Float()
	case int, int8, int16, int32, int64:
		f = float64(reflect.ValueOf(v).Int())
	case uint, uint8, uint16, uint32, uint64:
		f = float64(reflect.ValueOf(v).Uint())
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
