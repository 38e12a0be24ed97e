package cognition

import (
	"sync"
	"testing"

	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompileCache: the same expression and options share the compiled
// engines; each caller gets its own Pattern; other options compile anew.
func TestCompileCache(t *testing.T) {
	const expr = `(?:lacks?|needs?)\s+(.+?)(?:\n|$)`
	o := PatternOptions{IgnoreCase: true, DotAll: true}
	a, err := CompileOptions(expr, o)
	require.NoError(t, err)
	b, err := CompileOptions(expr, o)
	require.NoError(t, err)
	assert.NotSame(t, a, b)
	assert.Same(t, a.re, b.re, "the second compile comes from the cache")
	c, err := CompileOptions(expr, PatternOptions{DotAll: true})
	require.NoError(t, err)
	assert.NotSame(t, a.re, c.re, "other options compile anew")
	v, _, _ := a.Find("It needs more data")
	w, _, _ := c.Find("It NEEDS more data")
	assert.Equal(t, "more data", v)
	assert.Empty(t, w, "case-sensitive: the cached case-insensitive engine is not reused")

	_, err = CompileOptions(`SCORE:\s*([0-9.]+`, o)
	require.Error(t, err, "a bad expression fails every time")
	_, err = CompileOptions(`SCORE:\s*([0-9.]+`, o)
	require.Error(t, err)
}

// TestCompileCacheExtractors: extractors whose pattern sets overlap each
// build their own literal index; one built later does not change what an
// earlier one extracts, also when both run at once.
func TestCompileCacheExtractors(t *testing.T) {
	results := []Result{
		{ID: "analyzer", Value: map[string]any{"response": cogtest.AnalyzerText}},
		{ID: "scorer", Value: map[string]any{"response": cogtest.ScorerText}},
	}
	first := newExtractor(t, ExtractConfig{MaxLengthPerCategory: 400, Patterns: orkaExamplePatterns})
	want := first.Extract(results)
	require.NotEmpty(t, want.Insights)

	other := orkaExamplePatterns
	other.Insights = append([]string{`learned\s+(.+?)(?:\n|$)`, `noted\s+(.+?)(?:\n|$)`}, other.Insights...)
	other.Mistakes = other.Mistakes[:1]
	second := newExtractor(t, ExtractConfig{MaxLengthPerCategory: 400, Patterns: other})

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			assert.Equal(t, want, first.Extract(results))
			second.Extract(results)
		})
	}
	wg.Wait()
}
