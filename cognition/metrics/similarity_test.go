package metrics

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// levenshtein is the plain O(n·m) reference.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestSimilarity(t *testing.T) {
	tests := []struct {
		a, b  string
		floor float64
		want  float64
	}{
		{"", "", 0, 1},
		{"abc", "abc", 0.9, 1},
		{"kitten", "sitting", 0, 1 - 3.0/7},
		{"abc", "", 0, 0},
		{"héllo wörld", "hello world", 0, 1 - 2.0/11},
	}
	for _, tc := range tests {
		assert.InDelta(t, tc.want, Similarity(tc.a, tc.b, tc.floor), 1e-9, "%q vs %q", tc.a, tc.b)
	}
}

// Above the floor the banded distance is exact; below it, it stays below.
func TestSimilarityMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alphabet := []rune("abcde ")
	gen := func(n int) string {
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return string(r)
	}
	mutate := func(s string, edits int) string {
		r := []rune(s)
		for e := 0; e < edits && len(r) > 0; e++ {
			i := rng.Intn(len(r))
			switch rng.Intn(3) {
			case 0:
				r[i] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				r = append(r[:i], r[i+1:]...)
			default:
				r = append(r[:i], append([]rune{alphabet[rng.Intn(len(alphabet))]}, r[i:]...)...)
			}
		}
		return string(r)
	}
	for i := 0; i < 500; i++ {
		a := gen(rng.Intn(60))
		b := mutate(a, rng.Intn(12))
		if rng.Intn(5) == 0 {
			b = gen(rng.Intn(60))
		}
		ra, rb := []rune(a), []rune(b)
		longest := max(len(ra), len(rb))
		exact := 1.0
		if longest > 0 {
			exact = 1 - float64(levenshtein(ra, rb))/float64(longest)
		}
		for _, floor := range []float64{0, 0.5, 0.8, 0.95} {
			got := Similarity(a, b, floor)
			if exact >= floor {
				assert.InDelta(t, exact, got, 1e-9, "%q vs %q floor %v", a, b, floor)
			} else {
				assert.Less(t, got, floor, "%q vs %q floor %v", a, b, floor)
			}
		}
	}
}

func TestSimilarityCutsLongTexts(t *testing.T) {
	a := strings.Repeat("a", MaxSimilarityText) + "tail one"
	b := strings.Repeat("a", MaxSimilarityText) + "different tail"
	assert.Equal(t, 1.0, Similarity(a, b, 0.95), "only the first 10,000 characters count")
}

func BenchmarkSimilarity10k(b *testing.B) {
	x := strings.Repeat("the loop learns its way. ", 400)
	y := strings.Replace(x, "learns", "earns", 20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Similarity(x, y, 0.95)
	}
}
