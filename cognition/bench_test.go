package cognition

import (
	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"strings"
	"testing"
)

// benchIteration is [cogtest.Iteration]: three agents, about 1 KB each.
func benchIteration() []Result {
	return cogtest.Iteration(func(id string, v any) Result { return Result{ID: id, Value: v} })
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

// BenchmarkExtractPass is the lesson extraction of bench/'s loop pass: OrKa's
// six example patterns over the three agents' replies (one non-ASCII).
func BenchmarkExtractPass(b *testing.B) {
	results := []Result{
		{ID: "improver", Value: map[string]any{"response": cogtest.LoopReplies[0], "formatted_prompt": "p"}},
		{ID: "critic", Value: map[string]any{"response": cogtest.LoopReplies[1], "formatted_prompt": "p"}},
		{ID: "scorer", Value: map[string]any{"response": cogtest.LoopReplies[2], "formatted_prompt": "p"}},
	}
	e := newExtractor(b, ExtractConfig{Patterns: orkaExamplePatterns})
	if got := e.Extract(results); got.Insights == "" || got.Mistakes == "" || len(got.Warnings) > 0 {
		b.Fatalf("unexpected extraction: %+v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Extract(results)
	}
}
