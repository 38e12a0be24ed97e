package metrics

import (
	"testing"

	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moderateLoop is the loop_convergence/moderate preset table of the spec (3.4).
var moderateLoop = Weights(cogtest.ModerateLoop)

func TestIsValidBooleanStructure(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want bool
	}{
		{"two dimensions", map[string]any{"a": map[string]any{"x": true}, "b": map[string]any{"y": false}}, true},
		{"one dimension with two criteria", map[string]any{"a": map[string]any{"x": true, "y": false}}, true},
		{"one dimension with one criterion", map[string]any{"a": map[string]any{"x": true}}, false},
		{"canonical key needs two dimensions", map[string]any{"completeness": map[string]any{"x": true, "y": true, "z": true}}, false},
		{"canonical key with two dimensions", map[string]any{
			"completeness": map[string]any{"x": true}, "safety": map[string]any{"y": false},
		}, true},
		{"all-false bools still count", map[string]any{"a": map[string]any{"x": false, "y": false}}, true},
		{"string verdicts", map[string]any{"a": map[string]any{"x": " Pass ", "y": "no"}}, true},
		{"only negative strings do not count", map[string]any{"a": map[string]any{"x": "no", "y": "fail"}}, false},
		{"non-zero numbers count", map[string]any{"a": map[string]any{"x": 1, "y": 0}}, true},
		{"zeros do not count", map[string]any{"a": map[string]any{"x": 0, "y": 0.0}}, false},
		{"flat mapping", map[string]any{"x": true, "y": true}, false},
		{"empty", map[string]any{}, false},
		{"not a mapping", "true", false},
		{"nil", nil, false},
		{"typed maps", map[string]map[string]bool{"a": {"x": true}, "b": {"y": true}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, IsValidBooleanStructure(tc.in))
		})
	}
}

func TestParseBooleanEvaluations(t *testing.T) {
	t.Run("Python literal, keys lower-cased", func(t *testing.T) {
		got, ok := ParseBooleanEvaluations(`Verdict: {'COMPLETENESS': {'a': True, 'b': False}, 'EFFICIENCY': {'c': True, 'd': None}} done`)
		require.True(t, ok)
		assert.Equal(t, map[string]any{
			"completeness": map[string]any{"a": true, "b": false},
			"efficiency":   map[string]any{"c": true, "d": nil},
		}, got)
	})
	t.Run("JSON with an apostrophe is read as JSON first", func(t *testing.T) {
		got, ok := ParseBooleanEvaluations(`{"Improvement": {"better_than_previous": true, "note": "it's better"}}`)
		require.True(t, ok)
		assert.Equal(t, map[string]any{"improvement": map[string]any{"better_than_previous": true, "note": "it's better"}}, got)
	})
	t.Run("word boundaries", func(t *testing.T) {
		assert.Equal(t, `{"TrueNorth": true, "x": NoneSuch}`, modeltext.LiteralToJSON(`{'TrueNorth': True, 'x': NoneSuch}`))
	})
	for _, text := range []string{"no json here", "{not: json}", `{"a": {"x": true}}`, "} {"} {
		_, ok := ParseBooleanEvaluations(text)
		assert.False(t, ok, text)
	}
}

func TestWeights(t *testing.T) {
	evals := map[string]any{
		"improvement": map[string]any{"better_than_previous": true, "significant_delta": "PASS", "approaching_target": 1},
		"stability":   map[string]any{"not_degrading": "yes", "consistent_direction": "no"},
		"convergence": map[string]any{"delta_decreasing": false},
	}
	got, ok := moderateLoop.Score(evals)
	require.True(t, ok)
	assert.Equal(t, 0.58, got) // 0.25 + 0.15 + 0.18; the int 1 fails
	assert.Equal(t, []string{
		"convergence.delta_decreasing", "convergence.within_tolerance", "improvement.approaching_target",
		"improvement.better_than_previous", "improvement.significant_delta", "stability.consistent_direction",
		"stability.not_degrading",
	}, moderateLoop.Criteria())
	_, ok = Weights{}.Score(evals)
	assert.False(t, ok)
}
