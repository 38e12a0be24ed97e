package scorer

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newScorer(t testing.TB, cfg ScoreConfig) *Scorer {
	t.Helper()
	s, err := NewScorer(cfg)
	require.NoError(t, err)
	return s
}

func TestScore(t *testing.T) {
	scorePattern := ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`}
	tests := []struct {
		name     string
		cfg      ScoreConfig
		results  []cognition.Result
		want     float64
		found    bool
		source   string
		strategy string
		pattern  string
	}{
		// Normalisation, one rule on every path.
		{
			name: "Score: 8/10 in a bare string, default patterns", results: []cognition.Result{{ID: "scorer", Value: "Score: 8/10"}},
			want: 0.8, found: true, source: "scorer", strategy: StrategyPattern, pattern: `Score:\s*(\d+\.?\d*)`,
		},
		{
			name: "Score: 8/10 in a mapping response (OrKa: 0.08)", results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("Score: 8/10")}},
			want: 0.8, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "denominator read after the capture whatever the pattern", cfg: scorePattern,
			results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("SCORE: 8/10")}},
			want:    0.8, found: true, source: "scorer", strategy: StrategyPattern, pattern: `SCORE:\s*([0-9.]+)`,
		},
		{
			name: "**SCORE**: 0.85 with a suitable pattern", cfg: ScoreConfig{ExtractionPattern: `\*{0,2}SCORE\*{0,2}:\s*([0-9.]+)`},
			results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("Overall **SCORE**: 0.85")}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "**SCORE**: 0.85 with the defaults (0.[6-9] pattern)", results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("Overall **SCORE**: 0.85")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern, pattern: `0\.[6-9][0-9]?`,
		},
		{
			name: "SCORE: 85%", cfg: scorePattern, results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("SCORE: 85%")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "Score: 9.5 / 10", results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("Score: 9.5 / 10")}},
			want: 0.95, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "7 out of 10", results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("I would give it 7 out of 10.")}},
			want: 0.7, found: true, source: "scorer", strategy: StrategyPattern, pattern: `(\d+\.?\d*)\s*out\s*of\s*10`,
		},
		{
			name: "85/100", cfg: scorePattern, results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("SCORE: 85/100")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name:    "a % elsewhere in the text does not scale (OrKa: 0.009)",
			results: []cognition.Result{{ID: "agreement_moderator", Value: cogtest.Resp("SCORE: 0.9 (90% sure)")}},
			want:    0.9, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name: "1.5 is a percentage by the rule", cfg: scorePattern, results: []cognition.Result{{ID: "scorer", Value: "SCORE: 1.5"}},
			want: 0.015, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "above 100 clamps to 1", cfg: scorePattern, results: []cognition.Result{{ID: "scorer", Value: "SCORE: 150"}},
			want: 1, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "a full stop after the number", cfg: scorePattern, results: []cognition.Result{{ID: "scorer", Value: "My SCORE: 0.85."}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},

		// No score.
		{name: "no score", results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("no number here")}}},
		{name: "no results"},
		{
			name:    "an error record yields no score",
			results: []cognition.Result{{ID: "scorer", Value: map[string]any{"result": nil, "status": "error", "error": "SCORE: 0.9 in the message"}}},
		},
		{
			name: "non-string fields are not scanned by pattern strategies", cfg: scorePattern,
			results: []cognition.Result{{ID: "scorer", Value: map[string]any{"response": map[string]any{"text": "SCORE: 0.9"}}}},
		},

		// cognition.Pattern strategy order.
		{
			name: "patterns outer, agents inner",
			cfg: ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{
				`A:\s*([0-9.]+)`, `B:\s*([0-9.]+)`,
			}}}},
			results: []cognition.Result{{ID: "first", Value: "B: 0.2"}, {ID: "second", Value: "A: 0.7"}},
			want:    0.7, found: true, source: "second", strategy: StrategyPattern, pattern: `A:\s*([0-9.]+)`,
		},
		{
			name: "agents in execution order for one pattern", cfg: scorePattern,
			results: []cognition.Result{{ID: "first", Value: cogtest.Resp("SCORE: 0.3")}, {ID: "second", Value: cogtest.Resp("SCORE: 0.9")}},
			want:    0.3, found: true, source: "first", strategy: StrategyPattern,
		},
		{
			name: "mapping fields in response, result, output, data order", cfg: scorePattern,
			results: []cognition.Result{{ID: "a", Value: map[string]any{"data": "SCORE: 0.1", "result": "SCORE: 0.3", "response": "SCORE: 0.6"}}},
			want:    0.6, found: true, source: "a", strategy: StrategyPattern,
		},
		{
			name: "an unparseable capture falls through to the next candidate", cfg: scorePattern,
			results: []cognition.Result{{ID: "a", Value: "SCORE: ..."}, {ID: "b", Value: cogtest.Resp("SCORE: 1.2.3")}, {ID: "c", Value: cogtest.Resp("SCORE: 0.7")}},
			want:    0.7, found: true, source: "c", strategy: StrategyPattern,
		},
		{
			name: "strategies in declared order",
			cfg: ScoreConfig{Strategies: []Strategy{
				{Type: StrategyPattern, Patterns: []string{`QUALITY:\s*([0-9.]+)`}},
				{Type: StrategyPattern, Patterns: []string{`(0\.[5-9][0-9]?)`}},
			}},
			results: []cognition.Result{{ID: "a", Value: cogtest.Resp("maybe 0.55")}, {ID: "b", Value: cogtest.Resp("QUALITY: 0.4")}},
			want:    0.4, found: true, source: "b", strategy: StrategyPattern,
		},

		// Default pattern list.
		{
			name: "default: lower-case score:", results: []cognition.Result{{ID: "a", Value: "final score: 0.66"}},
			want: 0.66, found: true, source: "a", strategy: StrategyPattern, pattern: `score:\s*(\d+\.?\d*)`,
		},
		{
			name: "default: percentage", results: []cognition.Result{{ID: "a", Value: "roughly 72% of the goals"}},
			want: 0.72, found: true, source: "a", strategy: StrategyPattern, pattern: `(\d+\.?\d*)%`,
		},
		{
			name: "default: points", results: []cognition.Result{{ID: "a", Value: "earns 12 points"}},
			want: 0.12, found: true, source: "a", strategy: StrategyPattern, pattern: `(\d+\.?\d*)\s*points?`,
		},
		{
			name: "default: any decimal last", results: []cognition.Result{{ID: "a", Value: "value 0.45 reached"}},
			want: 0.45, found: true, source: "a", strategy: StrategyPattern, pattern: `([0-9]+\.[0-9]+)`,
		},

		// direct_key.
		{
			name: "direct_key: top-level agent with a numeric string", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("text")}, {ID: "quality", Value: "0.77"}},
			want:    0.77, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: number", cfg: ScoreConfig{Strategies: []Strategy{{Type: StrategyDirectKey, Key: "quality"}}},
			results: []cognition.Result{{ID: "quality", Value: 0.6}},
			want:    0.6, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: 150 clamps", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []cognition.Result{{ID: "quality", Value: "150"}}, want: 1, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: 8/10", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []cognition.Result{{ID: "quality", Value: "8/10"}}, want: 0.8, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: a bool is not a number", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []cognition.Result{{ID: "quality", Value: true}},
		},
		{
			name: "direct_key: JSON in a response (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("draft")}, {ID: "scorer", Value: cogtest.Resp(`{"score": 0.85}`)}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: fenced JSON in prose (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp("Here you go:\n```json\n{\"score\": 85, \"why\": \"ok\"}\n```")}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: Python dict literal (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "scorer", Value: "{'score': 0.4, 'ok': True}"}},
			want:    0.4, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: field of a mapping result (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "scorer", Value: map[string]any{"response": "fine", "score": "7 out of 10"}}},
			want:    0.7, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: mapping response (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "scorer", Value: map[string]any{"response": map[string]any{"score": 0.3}}}},
			want:    0.3, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: the top-level agent wins over fields", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []cognition.Result{{ID: "scorer", Value: cogtest.Resp(`{"score": 0.85}`)}, {ID: "score", Value: 0.2}},
			want:    0.2, found: true, source: "score", strategy: StrategyDirectKey,
		},
		{
			name:    "deprecated key and pattern: direct_key first",
			cfg:     ScoreConfig{ExtractionKey: "score", ExtractionPattern: `SCORE:\s*([0-9.]+)`},
			results: []cognition.Result{{ID: "a", Value: "SCORE: 0.9"}, {ID: "b", Value: cogtest.Resp(`{"score": 0.1}`)}},
			want:    0.1, found: true, source: "b", strategy: StrategyDirectKey,
		},
		{
			name: "deprecated pattern replaces the strategies",
			cfg: ScoreConfig{
				Strategies:        []Strategy{{Type: StrategyPattern, Patterns: []string{`X:\s*([0-9.]+)`}}},
				ExtractionPattern: `Y:\s*([0-9.]+)`,
			},
			results: []cognition.Result{{ID: "a", Value: "X: 0.9"}, {ID: "b", Value: "Y: 0.3"}},
			want:    0.3, found: true, source: "b", strategy: StrategyPattern,
		},

		// agent_key.
		{
			name:    "agent_key with the built-in patterns",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"judge"}, Key: "response"}}},
			results: []cognition.Result{{ID: "other", Value: cogtest.Resp("SCORE: 0.9")}, {ID: "judge", Value: cogtest.Resp("SCORE: 0.42 some text")}},
			want:    0.42, found: true, source: "judge", strategy: StrategyAgentKey,
		},
		{
			name:    "agent_key default key is response",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"judge"}}}},
			results: []cognition.Result{{ID: "judge", Value: cogtest.Resp("Score: 4 out of 5")}},
			want:    0.8, found: true, source: "judge", strategy: StrategyAgentKey,
		},
		{
			name:    "agent_key reads any field, in listed agent order",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"missing", "b", "a"}, Key: "verdict"}}},
			results: []cognition.Result{{ID: "a", Value: map[string]any{"verdict": "SCORE: 0.1"}}, {ID: "b", Value: map[string]any{"verdict": "SCORE: 0.5"}}},
			want:    0.5, found: true, source: "b", strategy: StrategyAgentKey,
		},
		{
			name: "agent_key with a group-less pattern works (OrKa raises)",
			cfg: ScoreConfig{Strategies: []Strategy{
				{Type: StrategyAgentKey, Agents: []string{"judge"}},
				{Type: StrategyPattern, Patterns: []string{`0\.\d+`}},
			}},
			results: []cognition.Result{{ID: "other", Value: "0.99"}, {ID: "judge", Value: cogtest.Resp("quality 0.42 overall")}},
			want:    0.42, found: true, source: "judge", strategy: StrategyAgentKey, pattern: `0\.\d+`,
		},

		// High-priority agents and the guard.
		{
			name:    "high-priority agent before strategies",
			results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("SCORE: 0.1")}, {ID: "agreement_moderator", Value: cogtest.Resp("AGREEMENT_SCORE: 0.92")}},
			want:    0.92, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority list order",
			results: []cognition.Result{{ID: "score_moderator", Value: cogtest.Resp("SCORE: 0.3")}, {ID: "quality_moderator", Value: cogtest.Resp("SCORE: 0.6")}},
			want:    0.6, found: true, source: "quality_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority agents use the configured patterns",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{`QUALITY:\s*([0-9.]+)`}}}},
			results: []cognition.Result{{ID: "agreement_moderator", Value: cogtest.Resp("AGREEMENT_SCORE: 0.92 QUALITY: 0.4")}},
			want:    0.4, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority built-in patterns when no pattern strategy",
			cfg:     ScoreConfig{Strategies: []Strategy{}},
			results: []cognition.Result{{ID: "agreement_moderator", Value: cogtest.Resp("Agreement Score: 0.81")}},
			want:    0.81, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority: Agreement: 15% observed",
			results: []cognition.Result{{ID: "agreement_moderator", Value: cogtest.Resp("Agreement: 15% observed")}},
			want:    0.15, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "custom high-priority agents",
			cfg:     ScoreConfig{HighPriorityAgents: []string{"judge"}},
			results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("SCORE: 0.1")}, {ID: "judge", Value: cogtest.Resp("SCORE: 0.7")}},
			want:    0.7, found: true, source: "judge", strategy: StrategyHighPriority,
		},
		{
			name:    "guard: a high-priority agent without a score gives 0",
			results: []cognition.Result{{ID: "writer", Value: cogtest.Resp("no number")}, {ID: "quality_moderator", Value: cogtest.Resp("I cannot decide")}},
			source:  "quality_moderator", strategy: StrategyGuard,
		},
		{
			name:    "guard does not hide a strategy's score",
			results: []cognition.Result{{ID: "writer", Value: "SCORE: 0.9"}, {ID: "quality_moderator", Value: cogtest.Resp("I cannot decide")}},
			want:    0.9, found: true, source: "writer", strategy: StrategyPattern,
		},

		// Repeated ids: first position, last value.
		{
			name: "a repeated id keeps its first position and takes the last value", cfg: scorePattern,
			results: []cognition.Result{{ID: "a", Value: "SCORE: 0.1"}, {ID: "b", Value: "SCORE: 0.5"}, {ID: "a", Value: "SCORE: 0.3"}},
			want:    0.3, found: true, source: "a", strategy: StrategyPattern,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := newScorer(t, tc.cfg).Score(tc.results)
			assert.InDelta(t, tc.want, got.Value, 1e-9)
			assert.Equal(t, tc.found, got.Found)
			assert.Equal(t, tc.source, got.Source)
			assert.Equal(t, tc.strategy, got.Strategy)
			if tc.pattern != "" {
				assert.Equal(t, tc.pattern, got.Pattern)
			}
			assert.Empty(t, got.Warnings)
		})
	}
}

func TestDefaultConfiguration(t *testing.T) {
	assert.Equal(t, []string{
		`score:\s*(\d+\.?\d*)`, `rating:\s*(\d+\.?\d*)`, `confidence:\s*(\d+\.?\d*)`, `agreement:\s*(\d+\.?\d*)`,
		`consensus:\s*(\d+\.?\d*)`, `AGREEMENT:\s*(\d+\.?\d*)`, `SCORE:\s*(\d+\.?\d*)`, `Score:\s*(\d+\.?\d*)`,
		`Agreement:\s*(\d+\.?\d*)`, `(\d+\.?\d*)/10`, `(\d+\.?\d*)%`, `(\d+\.?\d*)\s*out\s*of\s*10`,
		`(\d+\.?\d*)\s*points?`, `0\.[6-9][0-9]?`, `([0-9]+\.[0-9]+)`,
	}, DefaultPatterns())
	assert.Equal(t, []string{"agreement_moderator", "quality_moderator", "score_moderator"}, DefaultHighPriorityAgents())

	s := newScorer(t, ScoreConfig{})
	require.Len(t, s.strategies, 1)
	assert.Equal(t, StrategyPattern, s.strategies[0].kind)
	var exprs []string
	for _, p := range s.strategies[0].patterns {
		exprs = append(exprs, p.String())
	}
	assert.Equal(t, DefaultPatterns(), exprs)
	assert.Empty(t, s.Notes())
}

func TestNewScorerErrors(t *testing.T) {
	_, err := NewScorer(ScoreConfig{Strategies: []Strategy{
		{Type: StrategyPattern, Patterns: []string{`ok (\d)`, `bad (\d`}},
		{Type: StrategyDirectKey},
		{Type: StrategyAgentKey, Key: "response"},
		{Type: "regex"},
		{Type: StrategyPattern},
	}})
	require.Error(t, err)
	var errs interface{ Unwrap() []error }
	require.ErrorAs(t, err, &errs)
	var lines []string
	for _, e := range errs.Unwrap() {
		var fe *cognition.FieldError
		require.ErrorAs(t, e, &fe)
		lines = append(lines, e.Error())
	}
	assert.Equal(t, []string{
		`score_extraction_config.strategies[0].patterns[1]: invalid pattern "bad (\\d": missing closing )`,
		`score_extraction_config.strategies[1].key: direct_key strategy has no key`,
		`score_extraction_config.strategies[2].agents: agent_key strategy lists no agents`,
		`score_extraction_config.strategies[3].type: unknown strategy type "regex" (want pattern, direct_key, agent_key, nested_path, json)`,
		`score_extraction_config.strategies[4].patterns: pattern strategy has no patterns`,
	}, lines)

	_, err = NewScorer(ScoreConfig{ExtractionPattern: `SCORE: ([0-9.]+`})
	var fe *cognition.FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "score_extraction_pattern", fe.Field)
	var pe *cognition.PatternError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `SCORE: ([0-9.]+`, pe.Pattern)
}

func TestDeprecatedKeysNote(t *testing.T) {
	s := newScorer(t, ScoreConfig{
		Strategies:        []Strategy{{Type: StrategyPattern, Patterns: []string{`X(\d)`}}},
		AgreementFallback: true,
		ExtractionPattern: `SCORE:\s*([0-9.]+)`,
	})
	require.Len(t, s.Notes(), 1)
	assert.Contains(t, s.Notes()[0], "score_extraction_config is ignored")
	assert.False(t, s.agreement, "the deprecated keys discard agreement_fallback")
}

func TestScoreCatastrophicPatternWarns(t *testing.T) {
	s := newScorer(t, ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{
		`(a+)+(?=$)`, `SCORE:\s*([0-9.]+)`,
	}}}})
	long := strings.Repeat("a", 50000) + "!"
	got := s.Score([]cognition.Result{{ID: "evil", Value: long}, {ID: "b", Value: cogtest.Resp("SCORE: 0.5")}})
	assert.True(t, got.Found, "the scan goes on after a timeout")
	assert.Equal(t, "b", got.Source)
	assert.InDelta(t, 0.5, got.Value, 1e-9)
	require.Len(t, got.Warnings, 1)
	assert.Contains(t, got.Warnings[0].Message, `agent "evil": pattern "(a+)+(?=$)"`)
	assert.Contains(t, got.Warnings[0].Message, "regex match timed out after 100ms")
	assert.NotContains(t, got.Warnings[0].Message, strings.Repeat("a", modeltext.ExcerptLen+1))
	assert.Less(t, len(got.Warnings[0].Message), 300)
}

func TestScoreBudget(t *testing.T) {
	s := newScorer(t, ScoreConfig{
		ExtractionPattern: `(a+)+(?=$)`,
		Limits:            cognition.Limits{MatchTimeout: 10 * time.Millisecond, Budget: time.Nanosecond},
	})
	long := strings.Repeat("a", 50000) + "!"
	got := s.Score([]cognition.Result{{ID: "a", Value: long}, {ID: "b", Value: long}, {ID: "c", Value: long}})
	assert.False(t, got.Found)
	// The first scan always runs; after it the budget is spent and the rest are skipped.
	require.Len(t, got.Warnings, 2)
	assert.Contains(t, got.Warnings[0].Message, "regex match timed out")
	assert.Equal(t, "regex budget of 1ns spent: remaining scans skipped", got.Warnings[1].Message)
}

func TestScoreTruncatedInputWarns(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, Limits: cognition.Limits{MaxInput: 32}})
	got := s.Score([]cognition.Result{{ID: "a", Value: cogtest.Resp(strings.Repeat("x", 40) + " SCORE: 0.9")}})
	assert.True(t, got.Found, "the tail of a long reply is scanned")
	assert.Equal(t, 0.9, got.Value)
	assert.Equal(t, []string{`agent "a" response: text of 51 bytes scanned only in its first and last 16 bytes`}, cognition.Messages(got.Warnings))
	got = s.Score([]cognition.Result{{ID: "a", Value: cogtest.Resp(strings.Repeat("x", 20) + " SCORE: 0.9 " + strings.Repeat("x", 20))}})
	assert.False(t, got.Found, "its middle is not")
}

// A score after the first 64 KiB of a reply (models put it last) is found
// with the default limits.
func TestScoreInTheTailOfALongReply(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`})
	got := s.Score([]cognition.Result{{ID: "a", Value: strings.Repeat("long essay. ", 20000) + "\nSCORE: 0.85"}})
	require.True(t, got.Found)
	assert.Equal(t, 0.85, got.Value)
}

// A number too large for a float is not a score: "SCORE: 1e309" is not read
// as 1.0; the next agent's score counts, and a warning says why.
func TestNonFiniteIsNoScore(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`})
	got := s.Score([]cognition.Result{{ID: "writer", Value: "draft. SCORE: 1e309"}, {ID: "scorer", Value: "SCORE: 0.2"}})
	require.True(t, got.Found)
	assert.Equal(t, 0.2, got.Value)
	assert.Equal(t, "scorer", got.Source)
	require.NotEmpty(t, got.Warnings)
	assert.Equal(t, CodeNotFinite, got.Warnings[0].Code)
	assert.Contains(t, got.Warnings[0].Message, `agent "writer": the number is not finite`)
}

// fakeEmbedder answers its i-th call with vecs[i].
type fakeEmbedder struct {
	vecs  [][]float32
	err   error
	calls int
	texts []string
}

func (f *fakeEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	f.calls++
	f.texts = append(f.texts, text)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.err != nil {
		return nil, f.err
	}
	return f.vecs[f.calls-1], nil
}

func TestScoreAgreementFallback(t *testing.T) {
	results := []cognition.Result{{ID: "a", Value: cogtest.Resp("first view")}, {ID: "b", Value: map[string]any{"answer": "second view"}}, {ID: "c", Value: 0.5}}
	t.Run("mean pairwise cosine", func(t *testing.T) {
		emb := &fakeEmbedder{vecs: [][]float32{{1, 0}, {1, 1}}}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		got := s.ScoreContext(context.Background(), results, emb)
		assert.True(t, got.Found)
		assert.Equal(t, StrategyAgreement, got.Strategy)
		assert.InDelta(t, 0.7071067811865475, got.Value, 1e-9)
		assert.Equal(t, []string{"first view", "second view"}, emb.texts)
	})
	t.Run("no embedder: not found", func(t *testing.T) {
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		got := s.Score(results)
		assert.False(t, got.Found)
		assert.Empty(t, got.Strategy)
	})
	t.Run("off unless configured", func(t *testing.T) {
		emb := &fakeEmbedder{vecs: [][]float32{{1, 0}, {1, 0}}}
		got := newScorer(t, ScoreConfig{Strategies: []Strategy{}}).ScoreContext(context.Background(), results, emb)
		assert.False(t, got.Found)
		assert.Zero(t, emb.calls)
	})
	t.Run("the guard comes first", func(t *testing.T) {
		emb := &fakeEmbedder{vecs: [][]float32{{1, 0}, {1, 0}}}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		got := s.ScoreContext(context.Background(), append(results, cognition.Result{ID: "score_moderator", Value: cogtest.Resp("none")}), emb)
		assert.False(t, got.Found)
		assert.Equal(t, StrategyGuard, got.Strategy)
		assert.Zero(t, emb.calls)
	})
	t.Run("embed error becomes a warning", func(t *testing.T) {
		emb := &fakeEmbedder{err: errors.New("model offline")}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		got := s.ScoreContext(context.Background(), results, emb)
		assert.False(t, got.Found)
		assert.Equal(t, []string{"agreement fallback: embed: model offline"}, cognition.Messages(got.Warnings))
	})
	t.Run("fewer than two vectors", func(t *testing.T) {
		emb := &fakeEmbedder{vecs: [][]float32{{1, 0}, nil}}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		assert.False(t, s.ScoreContext(context.Background(), results, emb).Found)
	})
}

func TestNilScorer(t *testing.T) {
	var s *Scorer
	assert.Equal(t, Score{}, s.Score([]cognition.Result{{ID: "a", Value: "SCORE: 0.9"}}))
	assert.Nil(t, s.Notes())
}

// The regex running when the per-pass budget runs out is clamped to what is
// left of it: with a budget of 20ms, a catastrophic scan stops well before
// its MatchTimeout of 100ms.
func TestMatchTimeoutClampedToTheBudgetLeft(t *testing.T) {
	s := newScorer(t, ScoreConfig{
		ExtractionPattern: `(a+)+(?=$)`,
		Limits:            cognition.Limits{MatchTimeout: 100 * time.Millisecond, Budget: 20 * time.Millisecond},
	})
	long := strings.Repeat("a", 50000) + "!"
	got := s.Score([]cognition.Result{{ID: "a", Value: long}})
	assert.False(t, got.Found)
	require.NotEmpty(t, got.Warnings)
	msg := got.Warnings[0].Message
	require.Contains(t, msg, "regex match timed out after ")
	after := msg[strings.Index(msg, "timed out after ")+len("timed out after "):]
	d, err := time.ParseDuration(strings.Fields(after)[0])
	require.NoError(t, err, msg)
	assert.LessOrEqual(t, d, 20*time.Millisecond, "the scan's timeout fits the budget left: %s", msg)
}
