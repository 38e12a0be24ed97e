package scorer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want float64
	}{
		{0, 0},
		{0.85, 0.85},
		{1, 1},
		{1.5, 0.015}, // (1, 100] is a percentage, by cogloop's one rule
		{7, 0.07},
		{85, 0.85},
		{100, 1},
		{150, 1},
		{-0.5, 0},
		{math.NaN(), 0},
		{math.Inf(1), 1},
	}
	for _, tc := range tests {
		assert.InDelta(t, tc.want, Normalize(tc.in), 1e-12, "Normalize(%v)", tc.in)
	}
}

func TestParseScore(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.85", 0.85, true},
		{"  2.0  ", 0.02, true},
		{"85", 0.85, true},
		{"150", 1, true},
		{"-3", 0, false}, // a negative number is no score
		{"-0.5", 0, false},
		{"-0", 0, true},
		{"+0.5", 0.5, true},
		{"1e-1", 0.1, true},
		{"1e-9", 1e-9, true},
		{"1E-9", 1e-9, true},
		{"1.0000001", 1, true}, // within 1e-6 of 1: not a percentage
		{"1.000001", 1, true},
		{"1.00001", 0.0100001, true},
		{"8.5e1", 0.85, true},
		{"0.85.", 0.85, true},
		{"85%", 0.85, true},
		{"85 %", 0.85, true},
		{"8/10", 0.8, true},
		{"9.5 / 10", 0.95, true},
		{"85/100", 0.85, true},
		{"7 out of 10", 0.7, true},
		{"4 OUT OF 5", 0.8, true},
		{"12/10", 1, true},
		{"-8/10", 0, false},
		{"10.000001/10", 1, true},
		{"8/0", 0, false},
		{"", 0, false},
		{"   ", 0, false},
		{"test", 0, false},
		{"NaN", 0, false},
		{"inf", 0, false},
		{"-inf", 0, false},
		{"Infinity", 0, false},
		{"1e999", 0, false},
		{"8/10 points", 0, false},
		{"1.2.3", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseScore(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.InDelta(t, tc.want, got, 1e-12)
		})
	}
}

func TestCaptureScoreReadsTheScaleAfterTheCapture(t *testing.T) {
	tests := []struct {
		text, capture string
		want          float64
		ok            bool
	}{
		{"SCORE: 8/10", "8", 0.8, true},
		{"SCORE: 8 / 10 overall", "8", 0.8, true},
		{"SCORE: 85%", "85", 0.85, true},
		{"SCORE: 0.9 (90% sure)", "0.9", 0.9, true},
		{"SCORE: 7 out of 10", "7", 0.7, true},
		{"SCORE: 7\nout of 10", "7", 0.07, true}, // the scale must be on the same line
		{"SCORE: 8/100", "8", 0.08, true},
		{"SCORE: 0.85.", "0.85.", 0.85, true},
		{"SCORE: 8/10", "8/10", 0.8, true},
		{"SCORE: ...", "...", 0, false},
		{"SCORE: 1.2.3", "1.2.3", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r := []rune(tc.text)
			start := len([]rune("SCORE: "))
			got := captureScore(r, start, start+len([]rune(tc.capture)), ScaleDefault)
			assert.Equal(t, tc.ok, got != nil && got.ok())
			if got != nil {
				assert.InDelta(t, tc.want, got.value, 1e-12)
			}
		})
	}
}
