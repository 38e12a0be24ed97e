package scorer

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScoreForms reads every form a score can be written in, through OrKa's
// default patterns and through a typical user pattern.
func TestScoreForms(t *testing.T) {
	tests := []struct {
		text     string
		want     float64
		found    bool
		rescaled bool
		code     string // the warning a rejected number gives
	}{
		{"SCORE: 0.85", 0.85, true, false, ""},
		{"SCORE: 1e-9", 1e-9, true, false, ""}, // was 1.0 (the "1" of "1e-9")
		{"SCORE: 2.5E-1", 0.25, true, false, ""},
		{"SCORE: -0.5", 0, false, false, CodeNegativeScore}, // was 0.5
		{"SCORE: -1.5e-3", 0, false, false, CodeNegativeScore},
		{"SCORE: \u22120.5", 0, false, false, CodeNegativeScore}, // U+2212 minus sign
		{"SCORE: 1.0000001", 1, true, false, ""},                 // was 0.01
		{"SCORE: 1.0", 1, true, false, ""},
		{"SCORE: +0.7", 0.7, true, false, ""},
		{"SCORE: 0", 0, true, false, ""},
		{"SCORE: 8", 0.08, true, true, ""}, // the default rule, now reported
		{"SCORE: 85", 0.85, true, true, ""},
		{"SCORE: 250", 1, true, true, ""},
		{"SCORE: 8/10", 0.8, true, false, ""},
		{"SCORE: 7 out of 10", 0.7, true, false, ""},
		{"SCORE: 85%", 0.85, true, false, ""},
		{"SCORE: 12/10", 1, true, true, ""},
		{"SCORE: NaN", 0, false, false, ""},
		{"SCORE: inf", 0, false, false, ""},
		{"grades 3-5, SCORE: 0.8", 0.8, true, false, ""}, // a range dash is no sign
	}
	for _, pattern := range []string{"", `SCORE:\s*([-+]?[0-9.eE+-]+)`} {
		cfg := ScoreConfig{ExtractionPattern: pattern}
		if pattern == "" {
			cfg = ScoreConfig{}
		}
		s := newScorer(t, cfg)
		for _, tc := range tests {
			t.Run(pattern+" "+tc.text, func(t *testing.T) {
				got := s.Score([]cognition.Result{{ID: "scorer", Value: cogtest.Resp(tc.text)}})
				assert.Equal(t, tc.found, got.Found)
				assert.InDelta(t, tc.want, got.Value, 1e-15)
				assert.Equal(t, tc.rescaled, got.Rescaled != "", "rescaled: %q", got.Rescaled)
				if tc.code != "" && pattern == "" {
					require.NotEmpty(t, got.Warnings)
					assert.Equal(t, tc.code, got.Warnings[0].Code)
					assert.Contains(t, got.Warnings[0].Message, `agent "scorer" response`)
				}
			})
		}
	}
}

func TestScoreRescaledSaysHow(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`})
	got := s.Score([]cognition.Result{{ID: "scorer", Value: cogtest.Resp("SCORE: 8")}})
	assert.Equal(t, "8 read as 8 % = 0.08", got.Rescaled)
	assert.Equal(t, "scorer", got.Source)
	assert.Equal(t, "response", got.Field)
	assert.Equal(t, `SCORE:\s*([0-9.]+)`, got.Pattern)
	assert.Equal(t, 8.0, got.Written)
}

func TestScoreScale(t *testing.T) {
	tests := []struct {
		scale int
		text  string
		want  float64
		found bool
	}{
		{ScaleTen, "SCORE: 8", 0.8, true},
		{ScaleTen, "SCORE: 10", 1, true},
		{ScaleTen, "SCORE: 0.5", 0.05, true},
		{ScaleTen, "SCORE: 85%", 0.85, true}, // explicit forms keep their meaning
		{ScaleTen, "SCORE: 4/5", 0.8, true},
		{ScaleTen, "SCORE: 11", 0, false}, // above the scale: not a score
		{ScaleHundred, "SCORE: 8", 0.08, true},
		{ScaleHundred, "SCORE: 0.5", 0.005, true},
		{ScaleFraction, "SCORE: 0.8", 0.8, true},
		{ScaleFraction, "SCORE: 1.0000001", 1, true},
		{ScaleFraction, "SCORE: 8", 0, false},
		{ScaleFraction, "SCORE: 8/10", 0.8, true},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, Scale: tc.scale})
			got := s.Score([]cognition.Result{{ID: "scorer", Value: cogtest.Resp(tc.text)}})
			assert.Equal(t, tc.found, got.Found)
			assert.InDelta(t, tc.want, got.Value, 1e-12)
			assert.Empty(t, got.Rescaled, "an explicit scale rescales nothing silently")
			if !tc.found {
				require.Len(t, got.Warnings, 1)
				assert.Equal(t, CodeScoreOutOfRange, got.Warnings[0].Code)
			}
		})
	}
	_, err := NewScorer(ScoreConfig{Scale: 5})
	assert.ErrorContains(t, err, "score_scale: score_scale must be 1, 10 or 100, not 5")
}

func TestScoreFrom(t *testing.T) {
	results := []cognition.Result{
		{ID: "writer", Value: cogtest.Resp("Draft. SCORE: 1.0")}, // a non-scorer writing a score
		{ID: "scorer", Value: cogtest.Resp("SCORE: 0.4")},
	}
	got := newScorer(t, ScoreConfig{}).Score(results)
	assert.Equal(t, "writer", got.Source, "OrKa's order: the first agent wins")
	got = newScorer(t, ScoreConfig{From: []string{"scorer"}}).Score(results)
	assert.Equal(t, "scorer", got.Source)
	assert.InDelta(t, 0.4, got.Value, 1e-12)
	got = newScorer(t, ScoreConfig{From: []string{"judge"}}).Score(results)
	assert.False(t, got.Found)
	assert.Contains(t, newScorer(t, ScoreConfig{From: []string{"scorer"}}).Tried(), "only in scorer (score_from)")
}

func TestScorePathStrategies(t *testing.T) {
	results := []cognition.Result{
		{ID: "writer", Value: cogtest.Resp("no numbers here")},
		{ID: "scorer", Value: map[string]any{
			"response": `Here: {"safety_score": 0.9, "scores": {"overall": 8}, "items": [{"score": 0.3}]}`,
			"result":   map[string]any{"AGREEMENT_SCORE": "0.75"},
		}},
	}
	tests := []struct {
		name   string
		st     Strategy
		want   float64
		source string
		found  bool
	}{
		{"nested_path from the agent id", Strategy{Type: StrategyNestedPath, Path: "scorer.result.AGREEMENT_SCORE"}, 0.75, "scorer", true},
		{"nested_path inside each result", Strategy{Type: StrategyNestedPath, Path: "result.AGREEMENT_SCORE"}, 0.75, "scorer", true},
		{"nested_path into a JSON text", Strategy{Type: StrategyNestedPath, Path: "scorer.response.items.0.score"}, 0.3, "scorer", true},
		{"nested_path missing", Strategy{Type: StrategyNestedPath, Path: "scorer.result.missing"}, 0, "", false},
		{"json with $.", Strategy{Type: StrategyJSON, Path: "$.safety_score"}, 0.9, "scorer", true},
		{"json nested", Strategy{Type: StrategyJSON, Path: "scores.overall"}, 0.08, "scorer", true},
		{"json of listed agents", Strategy{Type: StrategyJSON, Path: "$.safety_score", Agents: []string{"writer"}}, 0, "", false},
		{"json bracket form", Strategy{Type: StrategyJSON, Path: "$['safety_score']"}, 0.9, "scorer", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := newScorer(t, ScoreConfig{Strategies: []Strategy{tc.st}}).Score(results)
			assert.Equal(t, tc.found, got.Found)
			assert.InDelta(t, tc.want, got.Value, 1e-12)
			assert.Equal(t, tc.source, got.Source)
			if tc.found {
				assert.Equal(t, tc.st.Type, got.Strategy)
			}
		})
	}
	_, err := NewScorer(ScoreConfig{Strategies: []Strategy{{Type: StrategyJSON}}})
	assert.ErrorContains(t, err, "score_extraction_config.strategies[0].path: json strategy has no path")
}

// TestPassBudgetIsShared: the score and lesson patterns of one pass share one
// budget; once it is spent the rest are skipped with one warning.
func TestPassBudgetIsShared(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `(a+)+(?=$)`, Limits: cognition.Limits{MatchTimeout: 10 * time.Millisecond}})
	e, err := cognition.NewExtractor(cognition.ExtractConfig{Patterns: cognition.ExtractPatterns{Insights: []string{`insight:\s*(.+)`}}})
	require.NoError(t, err)
	long := strings.Repeat("a", 50000) + "!"
	results := []cognition.Result{{ID: "a", Value: long + " insight: something worth keeping"}, {ID: "b", Value: long}}

	b := cognition.NewBudget(time.Nanosecond)
	sc := s.ScoreWithin(context.Background(), results, nil, b)
	ex := e.ExtractWithin(results, b)
	assert.True(t, b.Spent())
	assert.False(t, sc.Found)
	assert.Empty(t, ex.Insights, "the lesson patterns were skipped: the pass's budget was spent")
	var codes []string
	for _, w := range append(sc.Warnings, ex.Warnings...) {
		codes = append(codes, w.Code)
	}
	assert.Equal(t, []string{cognition.CodeRegexTimeout, cognition.CodeRegexBudget}, codes, "one budget warning per pass")

	// Without a shared budget each call has its own.
	ex = e.Extract(results)
	assert.Equal(t, "something worth keeping", ex.Insights)
}

func TestPatternLints(t *testing.T) {
	s := newScorer(t, ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{
		`SCORE: \d+`, `0\.[6-9][0-9]?`, `\d+ out of 10`, `(a+)+ SCORE: (\d)`, `SCORE:\s*([0-9.]+)`,
	}}}})
	var got []string
	for _, l := range s.Lints() {
		got = append(got, l.Field)
		switch l.Field {
		case "score_extraction_config.strategies[0].patterns[0]":
			assert.ErrorContains(t, l, `has no capturing group and its whole match (which must contain "SCORE: ")`)
		case "score_extraction_config.strategies[0].patterns[3]":
			assert.ErrorContains(t, l, `"(a+)+" at character 1`)
		}
	}
	assert.Equal(t, []string{"score_extraction_config.strategies[0].patterns[0]", "score_extraction_config.strategies[0].patterns[3]"}, got)
	assert.Empty(t, newScorer(t, ScoreConfig{}).Lints(), "the built-in patterns are fine")

	e, err := cognition.NewExtractor(cognition.ExtractConfig{Patterns: cognition.ExtractPatterns{Mistakes: []string{`ok (.+)`, `(\w+\s*)+:(.+)`}}})
	require.NoError(t, err)
	require.Len(t, e.Lints(), 1)
	assert.Equal(t, "cognitive_extraction.extract_patterns.mistakes[1]", e.Lints()[0].Field)
}
