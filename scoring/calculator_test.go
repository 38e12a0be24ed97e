package scoring_test

import (
	"testing"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/scoring"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func evals(pass ...string) map[string]any {
	out := map[string]any{}
	for _, k := range pass {
		d, c, _ := cutKey(k)
		m, _ := out[d].(map[string]any)
		if m == nil {
			m = map[string]any{}
			out[d] = m
		}
		m[c] = true
	}
	return out
}

func cutKey(k string) (string, string, bool) {
	for i := 0; i < len(k); i++ {
		if k[i] == '.' {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}

func TestCalculatorScoresWithThePreset(t *testing.T) {
	calc, err := scoring.Embedded().Calculator("loop_convergence", "moderate", nil)
	require.NoError(t, err)
	tests := []struct {
		name  string
		evals map[string]any
		score float64
		label string
	}{
		{"nothing", map[string]any{}, 0, scoring.Rejected},
		{"two", evals("improvement.better_than_previous", "stability.not_degrading"), 0.43, scoring.Rejected},
		{"needs improvement", evals("improvement.better_than_previous", "improvement.significant_delta", "stability.not_degrading",
			"stability.consistent_direction", "convergence.delta_decreasing"), 0.82, scoring.NeedsImprovement},
		{"all but one", evals("improvement.better_than_previous", "improvement.significant_delta", "improvement.approaching_target",
			"stability.not_degrading", "stability.consistent_direction", "convergence.delta_decreasing"), 0.92, scoring.Approved},
		{"strings and junk", map[string]any{
			"improvement": map[string]any{"better_than_previous": "YES", "significant_delta": " pass ", "approaching_target": 1},
			"stability":   map[string]any{"not_degrading": "passed", "consistent_direction": "no"},
			"convergence": map[string]bool{"delta_decreasing": true, "within_tolerance": false},
		}, 0.25 + 0.15 + 0.18 + 0.12, scoring.NeedsImprovement},
		{"upper-case dimensions do not count", map[string]any{"IMPROVEMENT": map[string]any{"better_than_previous": true}}, 0, scoring.Rejected},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := calc.Evaluate(tc.evals)
			assert.InDelta(t, tc.score, e.Score, 1e-9)
			assert.Equal(t, tc.label, e.Assessment)
			assert.Len(t, append(e.Passed, e.Failed...), 7)
			s, ok := calc.Score(tc.evals)
			assert.True(t, ok)
			assert.Equal(t, e.Score, s)
		})
	}
}

func TestEvaluationDetails(t *testing.T) {
	calc, err := scoring.Embedded().Calculator("validation", "strict", nil)
	require.NoError(t, err)
	e := calc.Evaluate(evals("schema_compliance.matches_schema", "format.well_formed"))
	assert.Equal(t, 0.4, e.Score)
	assert.Equal(t, []string{"schema_compliance.matches_schema", "format.well_formed"}, e.Passed)
	assert.Equal(t, []string{"schema_compliance.all_required_fields", "schema_compliance.correct_types",
		"constraints.within_bounds", "constraints.valid_relationships"}, e.Failed)
	require.Len(t, e.Dimensions, 3)
	assert.Equal(t, scoring.DimensionScore{Dimension: "schema_compliance", Score: 0.3, Max: 0.65, Percentage: 46.1538, Passed: 1, Total: 3}, e.Dimensions[0])
	assert.Equal(t, scoring.DimensionScore{Dimension: "format", Score: 0.1, Max: 0.1, Percentage: 100, Passed: 1, Total: 1}, e.Dimensions[2])
	assert.Equal(t, scoring.Verdict{Key: "schema_compliance.matches_schema", Weight: 0.3, Passed: true}, e.Criteria[0])
}

// TestCustomWeightsRenormalise uses OrKa's simple_boolean_loop.yml numbers:
// lenient loop_convergence with three weights replaced sums to 1.5.
func TestCustomWeightsRenormalise(t *testing.T) {
	custom := map[string]float64{
		"improvement.better_than_previous": 0.50,
		"convergence.within_tolerance":     0.30,
		"stability.consistent_direction":   0.20,
	}
	calc, err := scoring.Embedded().Calculator("loop_convergence", "lenient", custom)
	require.NoError(t, err)
	assert.True(t, calc.Custom())
	w, _ := calc.Weight("improvement.better_than_previous")
	assert.InDelta(t, 0.5/1.5, w, 1e-12)
	w, _ = calc.Weight("stability.not_degrading")
	assert.InDelta(t, 0.2/1.5, w, 1e-12, "weights not given keep the preset's, renormalised")
	sum := 0.0
	for _, c := range calc.Preset().Criteria {
		sum += c.Weight
	}
	assert.InDelta(t, 1, sum, 1e-12)

	s, _ := calc.Score(evals("improvement.better_than_previous", "convergence.within_tolerance"))
	assert.Equal(t, 0.5333, s)

	exact, err := scoring.Embedded().Calculator("loop_convergence", "lenient", map[string]float64{
		"improvement.better_than_previous": 0.2, "stability.not_degrading": 0.25})
	require.NoError(t, err)
	w, _ = exact.Weight("improvement.better_than_previous")
	assert.Equal(t, 0.2, w, "weights that still sum to 1 are used as given")
}

func TestCustomWeightErrors(t *testing.T) {
	cat := scoring.Embedded()
	_, err := cat.Calculator("loop_convergence", "strict", map[string]float64{
		"improvement.beter_than_previous": 0.5, "stability.not_degrading": -1})
	require.Error(t, err)
	assert.ErrorIs(t, err, scoring.ErrUnknownCriterion)
	assert.ErrorIs(t, err, scoring.ErrBadWeight)
	assert.Contains(t, err.Error(), `custom weight "improvement.beter_than_previous": no such criterion of preset loop_convergence/strict (criteria: improvement.better_than_previous, `)
	assert.Contains(t, err.Error(), `custom weight "stability.not_degrading": bad weight: -1 is negative`)
	var we *scoring.WeightError
	require.ErrorAs(t, err, &we)

	zero := map[string]float64{}
	p, err := cat.Preset("validation", "strict")
	require.NoError(t, err)
	for _, k := range p.Keys() {
		zero[k] = 0
	}
	_, err = scoring.NewCalculator(p, zero)
	assert.EqualError(t, err, "custom weights leave every criterion of preset validation/strict at 0")

	_, err = scoring.NewCalculator(&scoring.Preset{Context: "x", Level: "y", Approved: 0.5, NeedsImprovement: 0.6,
		Criteria: []scoring.Criterion{{Key: "a.b", Weight: 0.7}}}, nil)
	assert.EqualError(t, err, "preset x/y: weights sum to 0.7, not 1 (±0.001); needs_improvement (0.6) must not be above approved (0.5)")
}

func TestCalculatorIsABooleanScorerForTheLoop(t *testing.T) {
	calc, err := scoring.Embedded().Calculator("loop_convergence", "moderate", nil)
	require.NoError(t, err)
	s, err := scorer.NewScorer(scorer.ScoreConfig{Boolean: calc})
	require.NoError(t, err)

	sparse := cognition.Result{ID: "v", Value: map[string]any{
		"boolean_evaluations": evals("improvement.better_than_previous", "stability.not_degrading"),
		"validation_score":    0.9,
	}}
	sc := s.Score([]cognition.Result{sparse})
	assert.NotEqual(t, scorer.StrategyBoolean, sc.Strategy, "2 of 7 criteria is under the 50 % rule")

	full := cognition.Result{ID: "v", Value: map[string]any{"boolean_evaluations": map[string]any{
		"improvement": map[string]any{"better_than_previous": true, "significant_delta": false, "approaching_target": false},
		"stability":   map[string]any{"not_degrading": true},
	}}}
	sc = s.Score([]cognition.Result{full})
	assert.Equal(t, scorer.StrategyBoolean, sc.Strategy, "4 of 7 passes the 50 % rule")
	assert.Equal(t, 0.43, sc.Value)
}

func TestPassed(t *testing.T) {
	for _, v := range []any{true, "true", "YES", " 1 ", "Pass", "passed"} {
		assert.True(t, scoring.Passed(v), "%#v", v)
	}
	for _, v := range []any{false, "false", "no", 1, 1.0, nil, "maybe", map[string]any{}} {
		assert.False(t, scoring.Passed(v), "%#v", v)
	}
}
