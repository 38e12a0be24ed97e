package load

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30", 30 * time.Second, ""},
		{"1.5", 1500 * time.Millisecond, ""},
		{"1m30s", 90 * time.Second, ""},
		{"PT5S", 5 * time.Second, ""},
		{"P1DT2H", 26 * time.Hour, ""},
		{"0", 0, ""},
		{"-1", 0, "negative"},
		{"-2s", 0, "negative"},
		{"NaN", 0, "not a number"},
		{"nan", 0, "not a number"},
		{"inf", 0, "too long"},
		{"+Inf", 0, "too long"},
		{"-inf", 0, "negative"},
		{"Infinity", 0, "too long"},
		{".inf", 0, "too long"},
		{"-.Inf", 0, "negative"},
		{".NaN", 0, "not a number"},
		{"1e300", 0, "too long"}, // was a negative duration
		{"1e400", 0, "too long"},
		{"9300000000", 0, "too long"},
		{"9999999999h", 0, "too long"},
		{"P99999999999D", 0, "too long"},
		{"P100000DT2562047H", 0, "too long"}, // the parts overflow only together
		{"soon", 0, "write seconds (30)"},
		{"5x", 0, "write seconds (30)"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseDuration(tc.in)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				assert.ErrorContains(t, err, tc.in)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
