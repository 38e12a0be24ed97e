package scorer

import (
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"testing"
)

func BenchmarkScore(b *testing.B) {
	results := benchIteration()
	for _, bc := range []struct {
		name string
		cfg  ScoreConfig
	}{
		{"default_patterns", ScoreConfig{}},
		{"score_extraction_pattern", ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`}},
	} {
		s := newScorer(b, bc.cfg)
		if got := s.Score(results); !got.Found {
			b.Fatalf("%s: no score", bc.name)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Score(results)
			}
		})
	}
}

// BenchmarkScorePass is the score of bench/'s loop pass: its
// score_extraction_pattern over the three agents' replies.
func BenchmarkScorePass(b *testing.B) {
	results := []cognition.Result{
		{ID: "improver", Value: map[string]any{"response": cogtest.LoopReplies[0], "formatted_prompt": "p"}},
		{ID: "critic", Value: map[string]any{"response": cogtest.LoopReplies[1], "formatted_prompt": "p"}},
		{ID: "scorer", Value: map[string]any{"response": cogtest.LoopReplies[2], "formatted_prompt": "p"}},
	}
	s := newScorer(b, ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`})
	if got := s.Score(results); !got.Found || got.Value != 0.62 {
		b.Fatalf("unexpected score: %+v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Score(results)
	}
}
