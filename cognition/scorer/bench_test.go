package scorer

import "testing"

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
