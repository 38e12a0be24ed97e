package pyvalue

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

type myInt int

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{0.5, 0.5, true}, {float32(0.25), 0.25, true}, {3, 3, true}, {int8(-8), -8, true}, {int16(16), 16, true},
		{int32(32), 32, true}, {int64(1 << 40), 1 << 40, true}, {uint(7), 7, true}, {uint8(8), 8, true},
		{uint16(16), 16, true}, {uint32(32), 32, true}, {uint64(64), 64, true},
		{json.Number("2.5"), 2.5, true}, {json.Number("1e3"), 1000, true},
		{" 0.75\n", 0.75, true}, {"1_000", 1000, true}, {"-1e2", -100, true}, {"1500000.0", 1500000, true},
		{"0x10", 0, false}, {"", 0, false}, {"1e", 0, false}, {"8/10", 0, false}, {"eight", 0, false},
		{true, 0, false}, {false, 0, false}, {nil, 0, false}, {[]any{1}, 0, false}, {map[string]any{}, 0, false},
		{myInt(3), 0, false},
	} {
		f, ok := Number(c.v)
		assert.Equal(t, c.ok, ok, "%#v", c.v)
		assert.Equal(t, c.want, f, "%#v", c.v)
	}
	f, ok := Number("inf")
	assert.True(t, ok && math.IsInf(f, 1))
	f, ok = Number("nan")
	assert.True(t, ok && math.IsNaN(f))
}

func TestFinite(t *testing.T) {
	for _, v := range []any{"inf", "-Infinity", "nan", math.NaN(), math.Inf(-1), "1e999", true, nil} {
		f, ok := Finite(v)
		assert.False(t, ok, "%#v", v)
		assert.Zero(t, f, "%#v", v)
	}
	f, ok := Finite(" 7 ")
	assert.True(t, ok)
	assert.Equal(t, 7.0, f)
}
