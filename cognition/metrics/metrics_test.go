package metrics

import (
	"testing"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/stretchr/testify/assert"
)

func TestSecondaryMetrics(t *testing.T) {
	tests := []struct {
		name    string
		results []cognition.Result
		quality float64
		trend   string
	}{
		{name: "absent: defaults", results: []cognition.Result{{ID: "a", Value: cogtest.Resp("nothing")}, {ID: "b", Value: "REASONING_QUALITY: 0.9"}}, quality: 0, trend: "STABLE"},
		{
			name:    "direct keys",
			results: []cognition.Result{{ID: "a", Value: map[string]any{"REASONING_QUALITY": 0.7, "CONVERGENCE_TREND": "IMPROVING"}}},
			quality: 0.7, trend: "IMPROVING",
		},
		{
			name:    "nested mapping",
			results: []cognition.Result{{ID: "a", Value: map[string]any{"result": map[string]any{"REASONING_QUALITY": "0.6", "CONVERGENCE_TREND": "DECLINING"}}}},
			quality: 0.6, trend: "DECLINING",
		},
		{
			name:    "JSON text",
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp(`{"REASONING_QUALITY": 0.55, "CONVERGENCE_TREND": "STABLE"}`)}},
			quality: 0.55, trend: "STABLE",
		},
		{
			name:    "Python literal text",
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp(`{'REASONING_QUALITY': 0.5, 'CONVERGENCE_TREND': 'IMPROVING', 'ok': True}`)}},
			quality: 0.5, trend: "IMPROVING",
		},
		{
			name:    "key: value in prose",
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp("Notes.\nREASONING_QUALITY: 0.8\nCONVERGENCE_TREND: 'IMPROVING', next")}},
			quality: 0.8, trend: "IMPROVING",
		},
		{
			name:    "first agent that has it, in execution order",
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp("CONVERGENCE_TREND: UP")}, {ID: "b", Value: map[string]any{"CONVERGENCE_TREND": "DOWN"}}},
			trend:   "UP",
		},
		{
			name:    "non-numeric quality is the default",
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp("REASONING_QUALITY: high")}},
			trend:   "STABLE",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.quality, ReasoningQuality(tc.results), 1e-12)
			assert.Equal(t, tc.trend, ConvergenceTrend(tc.results))
		})
	}
}

func TestMetricRaw(t *testing.T) {
	v, ok := Metric([]cognition.Result{{ID: "a", Value: cogtest.Resp(`"REASONING_QUALITY": "0.75"`)}}, MetricReasoningQuality)
	assert.True(t, ok)
	assert.Equal(t, 0.75, v, "digits and dots become a float for REASONING_QUALITY")
	v, ok = Metric([]cognition.Result{{ID: "a", Value: cogtest.Resp(`CUSTOM: 0.75`)}}, "CUSTOM")
	assert.True(t, ok)
	assert.Equal(t, "0.75", v, "other keys stay text")
	_, ok = Metric([]cognition.Result{{ID: "a", Value: cogtest.Resp(`CUSTOM 0.75`)}}, "CUSTOM")
	assert.False(t, ok)
	_, ok = Metric(nil, "")
	assert.False(t, ok)
}
