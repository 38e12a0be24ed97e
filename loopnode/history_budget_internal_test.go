package loopnode

import (
	"github.com/cogloop/cogloop/internal/pyvalue"
	"testing"

	"github.com/cogloop/cogloop/agents/spend"
	"github.com/stretchr/testify/assert"
)

func entry(n int, score float64, insight string) map[string]any {
	return map[string]any{"loop_number": n, "score": score, "insights": insight, "improvements": "", "mistakes": ""}
}

// TestHistoryBudgetSelects: off, the history is handed on as it is; on, the
// entries come most useful first (recent, best, or both in turn), an entry
// repeating chosen lessons is dropped, entries past max_tokens are left out
// (a shorter later one still fits), and leftOut counts what is not handed on.
func TestHistoryBudgetSelects(t *testing.T) {
	past := []map[string]any{
		entry(1, 0.2, "alpha"), entry(2, 0.9, "beta"), entry(3, 0.5, "alpha"), entry(4, 0.7, "gamma"), entry(5, 0.1, ""),
	}
	numbers := func(sel []map[string]any) []int {
		var out []int
		for _, e := range sel {
			out = append(out, e["loop_number"].(int))
		}
		return out
	}
	sel, left := historyBudget{}.selectPast(past)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, numbers(sel), "off: every entry, oldest first")
	assert.Zero(t, left)

	all := maxHistoryTokens
	for _, tc := range []struct {
		keep string
		want []int
	}{
		{keepRecent, []int{5, 4, 3, 2}}, // 1 repeats 3's lessons
		{keepBest, []int{2, 4, 3, 5}},   // 1 repeats 3's lessons
		{keepMixed, []int{5, 2, 4, 3}},  // newest, best, next newest (4), next best (4, taken), 3 ...
	} {
		sel, left := historyBudget{maxTokens: all, keep: tc.keep}.selectPast(past)
		assert.Equal(t, tc.want, numbers(sel), tc.keep)
		assert.Equal(t, 1, left, tc.keep)
	}

	// A budget of two entries' tokens keeps the newest two.
	two := spend.EstimateTokens(pyvalue.Str(past[4])) + spend.EstimateTokens(pyvalue.Str(past[3]))
	sel, left = historyBudget{maxTokens: two, keep: keepRecent}.selectPast(past)
	assert.Equal(t, []int{5, 4}, numbers(sel))
	assert.Equal(t, 3, left)

	// An entry too long for what is left is skipped; a shorter one after it fits.
	long := append([]map[string]any{entry(0, 0.3, "a short one")}, entry(1, 0.3, string(make([]byte, 4000))), entry(2, 0.3, "x"))
	budget := spend.EstimateTokens(pyvalue.Str(long[2])) + spend.EstimateTokens(pyvalue.Str(long[0]))
	sel, left = historyBudget{maxTokens: budget, keep: keepRecent}.selectPast(long)
	assert.Equal(t, []int{2, 0}, numbers(sel))
	assert.Equal(t, 1, left)
	used := 0
	for _, e := range sel {
		used += spend.EstimateTokens(pyvalue.Str(e))
	}
	assert.LessOrEqual(t, used, budget)
}
