package scorer

import (
	"testing"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/stretchr/testify/assert"
)

// moderateLoop is the loop_convergence/moderate preset table of the spec (3.4).
var moderateLoop = metrics.Weights(cogtest.ModerateLoop)

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
		scorer   metrics.BooleanScorer
		results  []cognition.Result
		want     float64
		found    bool
		source   string
		strategy string
		warning  string
	}{
		{
			name: "validator evaluations weighed by the scorer", scorer: moderateLoop,
			results: []cognition.Result{{ID: "analyzer", Value: cogtest.Resp("text without a score")}, {ID: "validator", Value: validator(full, 5.0/7)}},
			want:    0.82, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "boolean scoring comes before high-priority agents", scorer: moderateLoop,
			results: []cognition.Result{{ID: "agreement_moderator", Value: cogtest.Resp("SCORE: 0.1")}, {ID: "validator", Value: validator(full, 0.7)}},
			want:    0.82, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "fewer than half the criteria: agent skipped, validation_score too", scorer: moderateLoop,
			results: []cognition.Result{{ID: "validator", Value: validator(map[string]any{
				"improvement": map[string]any{"better_than_previous": true, "significant_delta": true},
				"other":       map[string]any{"x": true},
			}, 0.9)}},
			warning: `agent "validator": boolean_evaluations too sparse (2 of 7 criteria): skipped`,
		},
		{
			name: "half the criteria or more is enough", scorer: moderateLoop,
			results: []cognition.Result{{ID: "validator", Value: validator(map[string]any{
				"improvement": map[string]any{"better_than_previous": true, "significant_delta": true, "approaching_target": true},
				"stability":   map[string]any{"not_degrading": true},
			}, 0.9)}},
			want: 0.68, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "no coverage rule without Criteria", scorer: plainScorer{0.33},
			results: []cognition.Result{{ID: "validator", Value: validator(map[string]any{"a": map[string]any{"x": true}, "b": map[string]any{"y": true}}, 0.9)}},
			want:    0.33, found: true, source: "validator", strategy: StrategyBoolean,
		},
		{
			name: "invalid structure falls back to validation_score", scorer: moderateLoop,
			results: []cognition.Result{{ID: "validator", Value: validator(map[string]any{"improvement": map[string]any{"better_than_previous": true}}, 5.0/7)}},
			want:    5.0 / 7, found: true, source: "validator", strategy: StrategyValidationScore,
		},
		{
			name: "non-numeric validation_score skips the agent", scorer: moderateLoop,
			results: []cognition.Result{{ID: "validator", Value: map[string]any{"boolean_evaluations": map[string]any{}, "validation_score": "high",
				"path": "x"}}},
			warning: `agent "validator": validation_score "high" is not a number`,
		},
		{
			name: "Python literal in a response, keys lower-cased", scorer: moderateLoop,
			results: []cognition.Result{{ID: "judge", Value: cogtest.Resp(`Result: {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': False}, ` +
				`'STABILITY': {'not_degrading': True}}`)}},
			want: 0.43, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "mapping response", scorer: moderateLoop,
			results: []cognition.Result{{ID: "judge", Value: map[string]any{"response": map[string]any{
				"Improvement": map[string]any{"better_than_previous": true, "significant_delta": true},
			}}}},
			want: 0.4, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "empty evaluations without routing: boolean scoring skipped", scorer: moderateLoop,
			results: []cognition.Result{
				{ID: "validator", Value: map[string]any{"boolean_evaluations": map[string]any{"improvement": map[string]any{}}}},
				{ID: "judge", Value: cogtest.Resp(`SCORE: 0.4 {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': True}}`)},
			},
			want: 0.4, found: true, source: "judge", strategy: StrategyPattern,
			warning: "boolean_evaluations present but empty: boolean scoring skipped",
		},
		{
			name: "empty evaluations with routing output: boolean scoring still tried", scorer: moderateLoop,
			results: []cognition.Result{
				{ID: "validator", Value: map[string]any{"boolean_evaluations": map[string]any{"improvement": map[string]any{}}}},
				{ID: "router", Value: cogtest.Resp("Routing Decision: path A")},
				{ID: "judge", Value: cogtest.Resp(`SCORE: 0.4 {'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': True}}`)},
			},
			want: 0.4, found: true, source: "judge", strategy: StrategyBoolean,
		},
		{
			name: "without a metrics.BooleanScorer evaluations are ignored", scorer: nil,
			results: []cognition.Result{{ID: "validator", Value: validator(full, 0.7)}},
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
				assert.Equal(t, []string{tc.warning}, cognition.Messages(got.Warnings))
			}
		})
	}
}
