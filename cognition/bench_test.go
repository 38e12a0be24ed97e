package cognition

import (
	"strings"
	"testing"
)

// benchIteration is three agents with about 1 KB of text each, the score on the
// scorer's last line.
func benchIteration() []Result {
	pad := func(s string) string {
		for len(s) < 1000 {
			s += "\nFurther discussion of the topic adds context without new claims, as models often do."
		}
		return s
	}
	return []Result{
		{ID: "analyzer", Value: map[string]any{"response": pad(analyzerText), "confidence": 0.8, "internal_reasoning": "r"}},
		{ID: "critic", Value: pad("The critique identifies three weak spots in the argument.\nIt should cite sources.")},
		{ID: "scorer", Value: map[string]any{"response": pad(scorerText) + "\nSCORE: 0.72", "confidence": 0.9}},
	}
}

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

func BenchmarkExtract(b *testing.B) {
	results := benchIteration()
	e := newExtractor(b, ExtractConfig{Patterns: orkaExamplePatterns, MaxLengthPerCategory: 400})
	if got := e.Extract(results); got.Insights == "" || strings.Contains(strings.Join(Messages(got.Warnings), ""), "timed out") {
		b.Fatalf("unexpected extraction: %+v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Extract(results)
	}
}

// BenchmarkFindScan is a pattern that no literal starts (a whole-text scan)
// on a 1 KB text whose literal occurs only near its end.
func BenchmarkFindScan(b *testing.B) {
	p, err := Compile(`(\d+\.?\d*)\s*out\s*of\s*10`)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Further discussion of the topic adds context, 12 claims in 3 parts. ", 15) + "I rate it 7 out of 10."
	if v, ok, _ := p.Find(text); !ok || v != "7" {
		b.Fatalf("Find = %q, %v", v, ok)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = p.Find(text)
	}
}
