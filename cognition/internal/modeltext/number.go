package modeltext

import (
	"math"
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
