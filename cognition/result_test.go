package cognition

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dedupeQuadratic is Dedupe as it was before it became linear: the
// reference the differential test holds it to.
func dedupeQuadratic(results []Result) []Result {
	dup := false
	for i := 1; i < len(results) && !dup; i++ {
		for j := 0; j < i; j++ {
			if results[i].ID == results[j].ID {
				dup = true
				break
			}
		}
	}
	if !dup {
		return results
	}
	out := make([]Result, 0, len(results))
	pos := make(map[string]int, len(results))
	for _, r := range results {
		if i, ok := pos[r.ID]; ok {
			out[i].Value = r.Value
			continue
		}
		pos[r.ID] = len(out)
		out = append(out, r)
	}
	return out
}

// TestDedupeMatchesTheQuadraticReference: on random iterations (short and
// long, few and many distinct ids, repeats early and late) Dedupe gives what
// the pairwise version gave, returns its argument itself when no id repeats,
// and never changes its argument.
func TestDedupeMatchesTheQuadraticReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dups := 0
	for trial := range 3000 {
		n := rng.IntN(3 * dedupeScan)
		if trial%10 == 0 {
			n = rng.IntN(300)
		}
		ids := 1 + rng.IntN(2*n+1)
		in := make([]Result, n)
		for i := range in {
			in[i] = Result{ID: fmt.Sprint("a", rng.IntN(ids)), Value: i}
		}
		orig := slices.Clone(in)
		want := dedupeQuadratic(in) // it does not change in
		got := Dedupe(in)
		require.Equal(t, want, got, "trial %d: %v", trial, orig)
		require.Equal(t, orig, in, "Dedupe changed its argument")
		if len(got) == len(in) && n > 0 {
			assert.Same(t, &in[0], &got[0], "no repeat: the argument itself")
		} else if n > 0 {
			dups++
		}
	}
	assert.Greater(t, dups, 500, "the trials repeat ids often enough")
}
