package cognition

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moderateLoop is the loop_convergence/moderate preset table of the spec (3.4).
var moderateLoop = Weights{
	"improvement.better_than_previous": 0.25,
	"improvement.significant_delta":    0.15,
	"improvement.approaching_target":   0.10,
	"stability.not_degrading":          0.18,
	"stability.consistent_direction":   0.12,
	"convergence.delta_decreasing":     0.12,
	"convergence.within_tolerance":     0.08,
}

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
		assert.Equal(t, `{"TrueNorth": true, "x": NoneSuch}`, pyLiteralToJSON(`{'TrueNorth': True, 'x': NoneSuch}`))
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

// plainScorer has no Criteria, so the coverage rule does not apply.
type plainScorer struct{ v float64 }

func (p plainScorer) Score(map[string]any) (float64, bool) { return p.v, true }

func TestScoreBoolean(t *testing.T) {
	full := map[string]any{
		"improvement": map[string]any{"better_than_previous": true, "significant_delta": true, "approaching_target": false},
		"stability":   map[string]any{"not_degrading": true, "consistent_direction": true},
		"convergence": map[string]any{"delta_decreasing": true, "within_tolerance": false},
	}
	validator := func(evals any, score float64) map[string]any {
		return map[string]any{"boolean_evaluations": evals, "validation_score": score, "overall_assessment": "APPROVED"}
	}
	tests := []struct {
		name     string
		scorer   BooleanScorer
		results  []Result
		want     float64
		found    bool
		source   string
		strategy string
		warning  string
	}{
		{
			name: "validator evaluations weighed by the scorer", scorer: moderateLoop,
			results: []Result{{"analyzer", resp("text without a score")}, {"validator", validator(full, 5.0/7)}},
			want:    0.82, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "boolean scoring comes before high-priority agents", scorer: moderateLoop,
			results: []Result{{"agreement_moderator", resp("SCORE: 0.1")}, {"validator", validator(full, 0.7)}},
			want:    0.82, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "fewer than half the criteria: agent skipped, validation_score too", scorer: moderateLoop,
			results: []Result{{"validator", validator(map[string]any{
				"improvement": map[string]any{"better_than_previous": true, "significant_delta": true},
				"other":       map[string]any{"x": true},
			}, 0.9)}},
			warning: `agent "validator": boolean_evaluations too sparse (2 of 7 criteria): skipped`,
		},
		{
			name: "half the criteria or more is enough", scorer: moderateLoop,
			results: []Result{{"validator", validator(map[string]any{
				"improvement": map[string]any{"better_than_previous": true, "significant_delta": true, "approaching_target": true},
				"stability":   map[string]any{"not_degrading": true},
			}, 0.9)}},
			want: 0.68, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "no coverage rule without Criteria", scorer: plainScorer{0.33},
			results: []Result{{"validator", validator(map[string]any{"a": map[string]any{"x": true}, "b": map[string]any{"y": true}}, 0.9)}},
			want:    0.33, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "invalid structure falls back to validation_score", scorer: moderateLoop,
			results: []Result{{"validator", validator(map[string]any{"improvement": map[string]any{"better_than_previous": true}}, 5.0/7)}},
			want:    5.0 / 7, found: true, source: "validator", strategy: StrategyValidationScore,
		},
		{
			name: "non-numeric validation_score skips the agent", scorer: moderateLoop,
			results: []Result{{"validator", map[string]any{"boolean_evaluations": map[string]any{}, "validation_score": "high",
				"path": "x"}}},
			warning: `agent "validator": validation_score "high" is not a number`,
		},
		{
			name: "Python literal in a response, keys lower-cased", scorer: moderateLoop,
			results: []Result{{"judge", resp(`Result: {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': False}, ` +
				`'STABILITY': {'not_degrading': True}}`)}},
			want: 0.43, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "mapping response", scorer: moderateLoop,
			results: []Result{{"judge", map[string]any{"response": map[string]any{
				"Improvement": map[string]any{"better_than_previous": true, "significant_delta": true},
			}}}},
			want: 0.4, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "empty evaluations without routing: boolean scoring skipped", scorer: moderateLoop,
			results: []Result{
				{"validator", map[string]any{"boolean_evaluations": map[string]any{"improvement": map[string]any{}}}},
				{"judge", resp(`SCORE: 0.4 {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': True}}`)},
			},
			want: 0.4, found: true, source: "judge", strategy: StrategyPattern,
			warning: "boolean_evaluations present but empty: boolean scoring skipped",
		},
		{
			name: "empty evaluations with routing output: boolean scoring still tried", scorer: moderateLoop,
			results: []Result{
				{"validator", map[string]any{"boolean_evaluations": map[string]any{"improvement": map[string]any{}}}},
				{"router", resp("Routing Decision: path A")},
				{"judge", resp(`SCORE: 0.4 {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': True}}`)},
			},
			want: 0.4, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "without a BooleanScorer evaluations are ignored", scorer: nil,
			results: []Result{{"validator", validator(full, 0.7)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := newScorer(t, ScoreConfig{Boolean: tc.scorer}).Score(tc.results)
			assert.InDelta(t, tc.want, got.Value, 1e-9)
			assert.Equal(t, tc.found, got.Found)
			assert.Equal(t, tc.source, got.Source)
			assert.Equal(t, tc.strategy, got.Strategy)
			if tc.warning == "" {
				assert.Empty(t, got.Warnings)
			} else {
				assert.Equal(t, []string{tc.warning}, Messages(got.Warnings))
			}
		})
	}
}
