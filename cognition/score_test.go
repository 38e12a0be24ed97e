package cognition

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newScorer(t testing.TB, cfg ScoreConfig) *Scorer {
	t.Helper()
	s, err := NewScorer(cfg)
	require.NoError(t, err)
	return s
}

func resp(text string) map[string]any {
	return map[string]any{"response": text, "confidence": 0.9, "internal_reasoning": "r"}
}

func TestScore(t *testing.T) {
	scorePattern := ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`}
	tests := []struct {
		name     string
		cfg      ScoreConfig
		results  []Result
		want     float64
		found    bool
		source   string
		strategy string
		pattern  string
	}{
		// Normalisation, one rule on every path.
		{
			name: "Score: 8/10 in a bare string, default patterns", results: []Result{{"scorer", "Score: 8/10"}},
			want: 0.8, found: true, source: "scorer", strategy: StrategyPattern, pattern: `Score:\s*(\d+\.?\d*)`,
		},
		{
			name: "Score: 8/10 in a mapping response (OrKa: 0.08)", results: []Result{{"scorer", resp("Score: 8/10")}},
			want: 0.8, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "denominator read after the capture whatever the pattern", cfg: scorePattern,
			results: []Result{{"scorer", resp("SCORE: 8/10")}},
			want:    0.8, found: true, source: "scorer", strategy: StrategyPattern, pattern: `SCORE:\s*([0-9.]+)`,
		},
		{
			name: "**SCORE**: 0.85 with a suitable pattern", cfg: ScoreConfig{ExtractionPattern: `\*{0,2}SCORE\*{0,2}:\s*([0-9.]+)`},
			results: []Result{{"scorer", resp("Overall **SCORE**: 0.85")}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "**SCORE**: 0.85 with the defaults (0.[6-9] pattern)", results: []Result{{"scorer", resp("Overall **SCORE**: 0.85")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern, pattern: `0\.[6-9][0-9]?`,
		},
		{
			name: "SCORE: 85%", cfg: scorePattern, results: []Result{{"scorer", resp("SCORE: 85%")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "Score: 9.5 / 10", results: []Result{{"scorer", resp("Score: 9.5 / 10")}},
			want: 0.95, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "7 out of 10", results: []Result{{"scorer", resp("I would give it 7 out of 10.")}},
			want: 0.7, found: true, source: "scorer", strategy: StrategyPattern, pattern: `(\d+\.?\d*)\s*out\s*of\s*10`,
		},
		{
			name: "85/100", cfg: scorePattern, results: []Result{{"scorer", resp("SCORE: 85/100")}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name:    "a % elsewhere in the text does not scale (OrKa: 0.009)",
			results: []Result{{"agreement_moderator", resp("SCORE: 0.9 (90% sure)")}},
			want:    0.9, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name: "1.5 is a percentage by the rule", cfg: scorePattern, results: []Result{{"scorer", "SCORE: 1.5"}},
			want: 0.015, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "above 100 clamps to 1", cfg: scorePattern, results: []Result{{"scorer", "SCORE: 150"}},
			want: 1, found: true, source: "scorer", strategy: StrategyPattern,
		},
		{
			name: "a full stop after the number", cfg: scorePattern, results: []Result{{"scorer", "My SCORE: 0.85."}},
			want: 0.85, found: true, source: "scorer", strategy: StrategyPattern,
		},

		// No score.
		{name: "no score", results: []Result{{"writer", resp("no number here")}}},
		{name: "no results"},
		{
			name:    "an error record yields no score",
			results: []Result{{"scorer", map[string]any{"result": nil, "status": "error", "error": "SCORE: 0.9 in the message"}}},
		},
		{
			name: "non-string fields are not scanned by pattern strategies", cfg: scorePattern,
			results: []Result{{"scorer", map[string]any{"response": map[string]any{"text": "SCORE: 0.9"}}}},
		},

		// Pattern strategy order.
		{
			name: "patterns outer, agents inner",
			cfg: ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{
				`A:\s*([0-9.]+)`, `B:\s*([0-9.]+)`,
			}}}},
			results: []Result{{"first", "B: 0.2"}, {"second", "A: 0.7"}},
			want:    0.7, found: true, source: "second", strategy: StrategyPattern, pattern: `A:\s*([0-9.]+)`,
		},
		{
			name: "agents in execution order for one pattern", cfg: scorePattern,
			results: []Result{{"first", resp("SCORE: 0.3")}, {"second", resp("SCORE: 0.9")}},
			want:    0.3, found: true, source: "first", strategy: StrategyPattern,
		},
		{
			name: "mapping fields in response, result, output, data order", cfg: scorePattern,
			results: []Result{{"a", map[string]any{"data": "SCORE: 0.1", "result": "SCORE: 0.3", "response": "SCORE: 0.6"}}},
			want:    0.6, found: true, source: "a", strategy: StrategyPattern,
		},
		{
			name: "an unparseable capture falls through to the next candidate", cfg: scorePattern,
			results: []Result{{"a", "SCORE: ..."}, {"b", resp("SCORE: 1.2.3")}, {"c", resp("SCORE: 0.7")}},
			want:    0.7, found: true, source: "c", strategy: StrategyPattern,
		},
		{
			name: "strategies in declared order",
			cfg: ScoreConfig{Strategies: []Strategy{
				{Type: StrategyPattern, Patterns: []string{`QUALITY:\s*([0-9.]+)`}},
				{Type: StrategyPattern, Patterns: []string{`(0\.[5-9][0-9]?)`}},
			}},
			results: []Result{{"a", resp("maybe 0.55")}, {"b", resp("QUALITY: 0.4")}},
			want:    0.4, found: true, source: "b", strategy: StrategyPattern,
		},

		// Default pattern list.
		{
			name: "default: lower-case score:", results: []Result{{"a", "final score: 0.66"}},
			want: 0.66, found: true, source: "a", strategy: StrategyPattern, pattern: `score:\s*(\d+\.?\d*)`,
		},
		{
			name: "default: percentage", results: []Result{{"a", "roughly 72% of the goals"}},
			want: 0.72, found: true, source: "a", strategy: StrategyPattern, pattern: `(\d+\.?\d*)%`,
		},
		{
			name: "default: points", results: []Result{{"a", "earns 12 points"}},
			want: 0.12, found: true, source: "a", strategy: StrategyPattern, pattern: `(\d+\.?\d*)\s*points?`,
		},
		{
			name: "default: any decimal last", results: []Result{{"a", "value 0.45 reached"}},
			want: 0.45, found: true, source: "a", strategy: StrategyPattern, pattern: `([0-9]+\.[0-9]+)`,
		},

		// direct_key.
		{
			name: "direct_key: top-level agent with a numeric string", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []Result{{"writer", resp("text")}, {"quality", "0.77"}},
			want:    0.77, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: number", cfg: ScoreConfig{Strategies: []Strategy{{Type: StrategyDirectKey, Key: "quality"}}},
			results: []Result{{"quality", 0.6}},
			want:    0.6, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: 150 clamps", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []Result{{"quality", "150"}}, want: 1, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: 8/10", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []Result{{"quality", "8/10"}}, want: 0.8, found: true, source: "quality", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: a bool is not a number", cfg: ScoreConfig{ExtractionKey: "quality"},
			results: []Result{{"quality", true}},
		},
		{
			name: "direct_key: JSON in a response (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"writer", resp("draft")}, {"scorer", resp(`{"score": 0.85}`)}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: fenced JSON in prose (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"scorer", resp("Here you go:\n```json\n{\"score\": 85, \"why\": \"ok\"}\n```")}},
			want:    0.85, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: Python dict literal (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"scorer", "{'score': 0.4, 'ok': True}"}},
			want:    0.4, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: field of a mapping result (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"scorer", map[string]any{"response": "fine", "score": "7 out of 10"}}},
			want:    0.7, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: mapping response (cogloop)", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"scorer", map[string]any{"response": map[string]any{"score": 0.3}}}},
			want:    0.3, found: true, source: "scorer", strategy: StrategyDirectKey,
		},
		{
			name: "direct_key: the top-level agent wins over fields", cfg: ScoreConfig{ExtractionKey: "score"},
			results: []Result{{"scorer", resp(`{"score": 0.85}`)}, {"score", 0.2}},
			want:    0.2, found: true, source: "score", strategy: StrategyDirectKey,
		},
		{
			name:    "deprecated key and pattern: direct_key first",
			cfg:     ScoreConfig{ExtractionKey: "score", ExtractionPattern: `SCORE:\s*([0-9.]+)`},
			results: []Result{{"a", "SCORE: 0.9"}, {"b", resp(`{"score": 0.1}`)}},
			want:    0.1, found: true, source: "b", strategy: StrategyDirectKey,
		},
		{
			name: "deprecated pattern replaces the strategies",
			cfg: ScoreConfig{
				Strategies:        []Strategy{{Type: StrategyPattern, Patterns: []string{`X:\s*([0-9.]+)`}}},
				ExtractionPattern: `Y:\s*([0-9.]+)`,
			},
			results: []Result{{"a", "X: 0.9"}, {"b", "Y: 0.3"}},
			want:    0.3, found: true, source: "b", strategy: StrategyPattern,
		},

		// agent_key.
		{
			name:    "agent_key with the built-in patterns",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"judge"}, Key: "response"}}},
			results: []Result{{"other", resp("SCORE: 0.9")}, {"judge", resp("SCORE: 0.42 some text")}},
			want:    0.42, found: true, source: "judge", strategy: StrategyAgentKey,
		},
		{
			name:    "agent_key default key is response",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"judge"}}}},
			results: []Result{{"judge", resp("Score: 4 out of 5")}},
			want:    0.8, found: true, source: "judge", strategy: StrategyAgentKey,
		},
		{
			name:    "agent_key reads any field, in listed agent order",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyAgentKey, Agents: []string{"missing", "b", "a"}, Key: "verdict"}}},
			results: []Result{{"a", map[string]any{"verdict": "SCORE: 0.1"}}, {"b", map[string]any{"verdict": "SCORE: 0.5"}}},
			want:    0.5, found: true, source: "b", strategy: StrategyAgentKey,
		},
		{
			name: "agent_key with a group-less pattern works (OrKa raises)",
			cfg: ScoreConfig{Strategies: []Strategy{
				{Type: StrategyAgentKey, Agents: []string{"judge"}},
				{Type: StrategyPattern, Patterns: []string{`0\.\d+`}},
			}},
			results: []Result{{"other", "0.99"}, {"judge", resp("quality 0.42 overall")}},
			want:    0.42, found: true, source: "judge", strategy: StrategyAgentKey, pattern: `0\.\d+`,
		},

		// High-priority agents and the guard.
		{
			name:    "high-priority agent before strategies",
			results: []Result{{"writer", resp("SCORE: 0.1")}, {"agreement_moderator", resp("AGREEMENT_SCORE: 0.92")}},
			want:    0.92, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority list order",
			results: []Result{{"score_moderator", resp("SCORE: 0.3")}, {"quality_moderator", resp("SCORE: 0.6")}},
			want:    0.6, found: true, source: "quality_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority agents use the configured patterns",
			cfg:     ScoreConfig{Strategies: []Strategy{{Type: StrategyPattern, Patterns: []string{`QUALITY:\s*([0-9.]+)`}}}},
			results: []Result{{"agreement_moderator", resp("AGREEMENT_SCORE: 0.92 QUALITY: 0.4")}},
			want:    0.4, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority built-in patterns when no pattern strategy",
			cfg:     ScoreConfig{Strategies: []Strategy{}},
			results: []Result{{"agreement_moderator", resp("Agreement Score: 0.81")}},
			want:    0.81, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "high-priority: Agreement: 15% observed",
			results: []Result{{"agreement_moderator", resp("Agreement: 15% observed")}},
			want:    0.15, found: true, source: "agreement_moderator", strategy: StrategyHighPriority,
		},
		{
			name:    "custom high-priority agents",
			cfg:     ScoreConfig{HighPriorityAgents: []string{"judge"}},
			results: []Result{{"writer", resp("SCORE: 0.1")}, {"judge", resp("SCORE: 0.7")}},
			want:    0.7, found: true, source: "judge", strategy: StrategyHighPriority,
		},
		{
			name:    "guard: a high-priority agent without a score gives 0",
			results: []Result{{"writer", resp("no number")}, {"quality_moderator", resp("I cannot decide")}},
			source:  "quality_moderator", strategy: StrategyGuard,
		},
		{
			name:    "guard does not hide a strategy's score",
			results: []Result{{"writer", "SCORE: 0.9"}, {"quality_moderator", resp("I cannot decide")}},
			want:    0.9, found: true, source: "writer", strategy: StrategyPattern,
		},

		// Repeated ids: first position, last value.
		{
			name: "a repeated id keeps its first position and takes the last value", cfg: scorePattern,
			results: []Result{{"a", "SCORE: 0.1"}, {"b", "SCORE: 0.5"}, {"a", "SCORE: 0.3"}},
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
		var fe *FieldError
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
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "score_extraction_pattern", fe.Field)
	var pe *PatternError
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
	got := s.Score([]Result{{"evil", long}, {"b", resp("SCORE: 0.5")}})
	assert.True(t, got.Found, "the scan goes on after a timeout")
	assert.Equal(t, "b", got.Source)
	assert.InDelta(t, 0.5, got.Value, 1e-9)
	require.Len(t, got.Warnings, 1)
	assert.Contains(t, got.Warnings[0].Message, `agent "evil": pattern "(a+)+(?=$)"`)
	assert.Contains(t, got.Warnings[0].Message, "regex match timed out after 100ms")
	assert.NotContains(t, got.Warnings[0].Message, strings.Repeat("a", excerptLen+1))
	assert.Less(t, len(got.Warnings[0].Message), 300)
}

func TestScoreBudget(t *testing.T) {
	s := newScorer(t, ScoreConfig{
		ExtractionPattern: `(a+)+(?=$)`,
		Limits:            Limits{MatchTimeout: 10 * time.Millisecond, Budget: time.Nanosecond},
	})
	long := strings.Repeat("a", 50000) + "!"
	got := s.Score([]Result{{"a", long}, {"b", long}, {"c", long}})
	assert.False(t, got.Found)
	// The first scan always runs; after it the budget is spent and the rest are skipped.
	require.Len(t, got.Warnings, 2)
	assert.Contains(t, got.Warnings[0].Message, "regex match timed out")
	assert.Equal(t, "regex budget of 1ns spent: remaining scans skipped", got.Warnings[1].Message)
}

func TestScoreTruncatedInputWarns(t *testing.T) {
	s := newScorer(t, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, Limits: Limits{MaxInput: 32}})
	got := s.Score([]Result{{"a", resp(strings.Repeat("x", 40) + " SCORE: 0.9")}})
	assert.False(t, got.Found)
	assert.Equal(t, []string{`agent "a" response: text of 51 bytes scanned only up to 32 bytes`}, Messages(got.Warnings))
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
	results := []Result{{"a", resp("first view")}, {"b", map[string]any{"answer": "second view"}}, {"c", 0.5}}
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
		got := s.ScoreContext(context.Background(), append(results, Result{"score_moderator", resp("none")}), emb)
		assert.False(t, got.Found)
		assert.Equal(t, StrategyGuard, got.Strategy)
		assert.Zero(t, emb.calls)
	})
	t.Run("embed error becomes a warning", func(t *testing.T) {
		emb := &fakeEmbedder{err: errors.New("model offline")}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		got := s.ScoreContext(context.Background(), results, emb)
		assert.False(t, got.Found)
		assert.Equal(t, []string{"agreement fallback: embed: model offline"}, Messages(got.Warnings))
	})
	t.Run("fewer than two vectors", func(t *testing.T) {
		emb := &fakeEmbedder{vecs: [][]float32{{1, 0}, nil}}
		s := newScorer(t, ScoreConfig{Strategies: []Strategy{}, AgreementFallback: true})
		assert.False(t, s.ScoreContext(context.Background(), results, emb).Found)
	})
}

func TestNilScorer(t *testing.T) {
	var s *Scorer
	assert.Equal(t, Score{}, s.Score([]Result{{"a", "SCORE: 0.9"}}))
	assert.Nil(t, s.Notes())
}
