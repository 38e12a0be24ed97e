package scorer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/values"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOddValuesDoNotPanic feeds values no agent should produce.
func TestOddValuesDoNotPanic(t *testing.T) {
	cyclic := map[string]any{"status": "loop"}
	cyclic["self"] = cyclic
	odd := []cognition.Result{
		{ID: "nil", Value: nil},
		{ID: "nilmap", Value: map[string]any(nil)},
		{ID: "cyclic", Value: cyclic},
		{ID: "chan", Value: make(chan int)},
		{ID: "func", Value: func() {}},
		{ID: "nan", Value: math.NaN()},
		{ID: "inf", Value: map[string]any{"score": math.Inf(1), "response": math.NaN()}},
		{ID: "typed", Value: map[string]int{"score": 7}},
		{ID: "intkeys", Value: map[int]string{1: "x"}},
		{ID: "list", Value: []any{"SCORE: 0.9", nil}},
		{ID: "badutf8", Value: "SCORE: \xff\xfe 0.5 \xc3"},
		{ID: "evals", Value: map[string]any{"boolean_evaluations": map[string]any{"a": cyclic, "b": []any{true}}, "validation_score": math.NaN()}},
		{ID: "", Value: ""},
	}
	s := newScorer(t, ScoreConfig{Boolean: moderateLoop, ExtractionKey: "score"})
	e := orkaExtractor(t, 0, cognition.Limits{})
	assert.NotPanics(t, func() {
		s.Score(odd)
		newScorer(t, ScoreConfig{Boolean: moderateLoop}).Score(odd)
		e.Extract(odd)
		metrics.ReasoningQuality(odd)
		metrics.ConvergenceTrend(odd)
		for _, r := range odd {
			_ = values.Text(r.Value)
			metrics.IsValidBooleanStructure(r.Value)
		}
	})
	assert.Contains(t, values.Text(cyclic), `"self":{"self":{`)
}

// FuzzScoreAndExtract: arbitrary model text, as a bare string and as a response,
// through every entry point. Nothing may panic and every score is in [0, 1].
func FuzzScoreAndExtract(f *testing.F) {
	for _, seed := range []string{
		"SCORE: 8/10", "**SCORE**: 0.85", "Score: 9.5 / 10", "7 out of 10", "85%", `{"score": 0.85}`,
		"{'IMPROVEMENT': {'a': True, 'b': False}}", "REASONING_QUALITY: 0.8", "SCORE: ...", "1/0", "\xff",
		"The report provides a balanced view of costs and benefits.\nIt lacks regional data.",
	} {
		f.Add(seed)
	}
	scorers := []*Scorer{
		newScorer(f, ScoreConfig{}),
		newScorer(f, ScoreConfig{Boolean: moderateLoop, ExtractionKey: "score", ExtractionPattern: `SCORE:\s*([0-9.]+)`}),
		newScorer(f, ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"a"}}}}),
	}
	e := orkaExtractor(f, 40, cognition.Limits{})
	f.Fuzz(func(t *testing.T, text string) {
		results := []cognition.Result{{ID: "a", Value: text}, {ID: "b", Value: cogtest.Resp(text)}, {ID: "agreement_moderator", Value: cogtest.Resp(text)}}
		for _, s := range scorers {
			got := s.Score(results)
			require.True(t, got.Value >= 0 && got.Value <= 1, "score %v", got.Value)
			require.False(t, !got.Found && got.Value != 0)
		}
		if v, ok := ParseScore(text); ok {
			require.True(t, v >= 0 && v <= 1)
		}
		x := e.Extract(results)
		for _, c := range []string{x.Insights, x.Improvements, x.Mistakes} {
			require.LessOrEqual(t, len([]rune(strings.TrimSuffix(c, "..."))), 40)
		}
		metrics.ReasoningQuality(results)
		metrics.ParseBooleanEvaluations(text)
	})
}

// TestConcurrentUse shares one Scorer and one cognition.Extractor between goroutines; run
// with -race. Match timeouts are wall-clock time, so they are raised here: eight
// goroutines under the race detector on a small machine are slow, not stuck.
func TestConcurrentUse(t *testing.T) {
	limits := cognition.Limits{MatchTimeout: 10 * time.Second, Budget: time.Minute}
	s := newScorer(t, ScoreConfig{Boolean: moderateLoop, Limits: limits})
	e := orkaExtractor(t, 0, limits)
	results := benchIteration()
	want, wantX := s.Score(results), e.Extract(results)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				assert.Equal(t, want, s.Score(results))
				assert.Equal(t, wantX, e.Extract(results))
			}
		}()
	}
	for range 8 {
		<-done
	}
}
