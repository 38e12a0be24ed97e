package scorer

import (
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchIteration is [cogtest.Iteration]: three agents, about 1 KB each.
func benchIteration() []cognition.Result {
	return cogtest.Iteration(func(id string, v any) cognition.Result { return cognition.Result{ID: id, Value: v} })
}

// orkaExtractor is an Extractor of OrKa's example lesson patterns.
func orkaExtractor(t testing.TB, maxLen int, limits cognition.Limits) *cognition.Extractor {
	e, err := cognition.NewExtractor(cognition.ExtractConfig{
		Patterns: cognition.ExtractPatterns{
			Insights: cogtest.OrkaInsights, Improvements: cogtest.OrkaImprovements, Mistakes: cogtest.OrkaMistakes,
		},
		MaxLengthPerCategory: maxLen,
		Limits:               limits,
	})
	require.NoError(t, err)
	return e
}

// unanalysedScorer rebuilds s with every pattern as written.
func unanalysedScorer(s *Scorer) *Scorer {
	asWritten := func(ps []*cognition.Pattern) []*cognition.Pattern {
		out := make([]*cognition.Pattern, len(ps))
		for i, p := range ps {
			out[i] = p.AsWritten()
		}
		return out
	}
	c := *s
	c.strategies = nil
	for _, st := range s.strategies {
		st.patterns = asWritten(st.patterns)
		c.strategies = append(c.strategies, st)
	}
	c.hpPatterns, c.akPatterns = asWritten(s.hpPatterns), asWritten(s.akPatterns)
	return &c
}

// TestBuiltinPatternsDifferential: no built-in score pattern has a nested
// quantifier, and every one finds the same
// first match, analysed (prefilter, anchored attempts, RE2 form) and as
// written, on every differential text. (cognition checks the workflow files'
// and OrKa's patterns the same way, with every match.)
func TestBuiltinPatternsDifferential(t *testing.T) {
	exprs := append(DefaultPatterns(), highPriorityPatterns...)
	exprs = append(exprs, agentKeyPatterns...)
	limits := cognition.Limits{MatchTimeout: 10 * time.Second, Budget: time.Minute}
	for _, expr := range exprs {
		_, _, nested := cognition.NestedQuantifier(expr)
		assert.False(t, nested, expr)
		p, err := cognition.CompileOptions(expr, cognition.PatternOptions{Limits: limits})
		require.NoError(t, err, expr)
		plain := p.AsWritten()
		for _, text := range cogtest.DifferentialTexts() {
			sc := cognition.Scan{Limits: limits.WithDefaults()}
			t1 := sc.Text("a", "", text)
			ws, we, wok := sc.First(plain, t1)
			gs, ge, gok := sc.First(p, sc.Text("a", "", text))
			assert.Equal(t, [3]any{ws, we, wok}, [3]any{gs, ge, gok}, "%q on %q", expr, text)
			assert.Empty(t, sc.Warnings())
		}
	}
}

// TestScoreDifferential compares whole Score calls with and without the
// analysis.
func TestScoreDifferential(t *testing.T) {
	limits := cognition.Limits{MatchTimeout: 10 * time.Second, Budget: time.Minute}
	scorers := []*Scorer{
		newScorer(t, ScoreConfig{Limits: limits}),
		newScorer(t, ScoreConfig{Limits: limits, ExtractionPattern: `SCORE:\s*([0-9.]+)`}),
		newScorer(t, ScoreConfig{Limits: limits, Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"b", "a"}}}}),
		newScorer(t, ScoreConfig{Limits: limits, Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{
			`QUALITY:\s*([0-9]+\.?[0-9]*)`, `(0\.[6-9][0-9]?)`, `(1\.0)`}}}}),
	}
	texts := cogtest.DifferentialTexts()
	for i, a := range texts {
		b := texts[(i*7+3)%len(texts)]
		results := []cognition.Result{{ID: "a", Value: a}, {ID: "b", Value: cogtest.Resp(b)}, {ID: "score_moderator", Value: map[string]any{"result": a + b}}}
		for _, s := range scorers {
			assert.Equal(t, unanalysedScorer(s).Score(results), s.Score(results), "texts %d", i)
		}
	}
	results := benchIteration()
	for _, s := range scorers {
		assert.Equal(t, unanalysedScorer(s).Score(results), s.Score(results))
	}
}
