package pyvalue

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowFloat is AppendFloat without the short-decimal path: strconv's
// shortest form, the reference the fast path must equal.
func slowFloat(f float64) string {
	abs := math.Abs(f)
	if abs != 0 && (abs >= 1e16 || abs < 1e-4) {
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range s {
		if c == '.' {
			return s
		}
	}
	return s + ".0"
}

func TestPyFloatShortDecimalsMatchStrconv(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return // AppendFloat is for finite numbers
		}
		require.Equal(t, slowFloat(f), Float(f), "%v (bits %x)", f, math.Float64bits(f))
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 0.85, 0.1 + 0.2, 1.0 / 3, 0.0001, 0.00015,
		99.99, 1e9 - 0.5, 999999999.9999, -123.456, 0.07, 2.675, 1e-5, 123456789.1234, 0.95, 7.0} {
		check(f)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		// decimals of 0 to 6 places, the shapes scores and durations have
		places := r.IntN(7)
		n := r.Int64N(2_000_000_000_000) - 1_000_000_000_000
		check(float64(n) / math.Pow(10, float64(places)))
		// and any float at all
		check(math.Float64frombits(r.Uint64()))
		check(r.Float64() * math.Pow(10, float64(r.IntN(12)-3)))
	}
}

func FuzzPyFloat(f *testing.F) {
	f.Add(0.85)
	f.Add(0.1 + 0.2)
	f.Add(-2.675)
	f.Fuzz(func(t *testing.T, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		assert.Equal(t, slowFloat(x), Float(x), "%v", x)
	})
}
