package loopnode

import (
	"cmp"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"slices"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
)

// The ways past_loops_budget picks the history entries the prompts see.
const (
	keepRecent = "recent" // the newest passes first
	keepBest   = "best"   // the highest scores first (newer first on a tie)
	keepMixed  = "mixed"  // newest and best in turn
)

// historyBudget is past_loops_budget: {max_tokens, keep}. The zero value is
// off: the prompts see every kept entry, oldest first (OrKa's behaviour).
type historyBudget struct {
	maxTokens int
	keep      string
}

// maxHistoryTokens bounds max_tokens.
const maxHistoryTokens = 10_000_000

func readHistoryBudget(c *load.Config) historyBudget {
	m := c.Map("past_loops_budget")
	if m == nil {
		return historyBudget{}
	}
	hb := historyBudget{maxTokens: m.Int("max_tokens", 0, 1, maxHistoryTokens), keep: m.String("keep", keepRecent)}
	if !m.Recording() {
		if !m.Has("max_tokens") {
			m.Errorf("max_tokens", "past_loops_budget needs max_tokens: the tokens the history the prompts see may take (e.g. 2000)")
		}
		switch hb.keep {
		case keepRecent, keepBest, keepMixed:
		default:
			m.Errorf("keep", "keep must be recent, best or mixed, not %q", hb.keep)
		}
	}
	m.Done()
	return hb
}

// on reports whether a budget applies.
func (hb historyBudget) on() bool { return hb.maxTokens > 0 }

// selectPast is the history the prompts of the next pass see: past itself
// when the budget is off; else the entries in keep's order (most useful
// first), each once (an entry whose lessons repeat a chosen one's adds
// nothing), as many as fit in maxTokens (an entry's tokens are those of its
// text as a template prints it). leftOut is how many entries of past it
// leaves out.
func (hb historyBudget) selectPast(past []map[string]any) (sel []map[string]any, leftOut int) {
	if !hb.on() || len(past) == 0 {
		return past, 0
	}
	sel = make([]map[string]any, 0, len(past))
	seen := make(map[string]bool, len(past))
	used := 0
	for _, i := range hb.order(past) {
		e := past[i]
		if key, ok := lessonKey(e); ok {
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		t := spend.EstimateTokens(pyvalue.Str(e))
		if used+t > hb.maxTokens {
			continue // a shorter entry further down may still fit
		}
		used += t
		sel = append(sel, e)
	}
	return sel, len(past) - len(sel)
}

// order lists the indexes of past, most useful first.
func (hb historyBudget) order(past []map[string]any) []int {
	recent := make([]int, len(past))
	for i := range recent {
		recent[i] = len(past) - 1 - i
	}
	if hb.keep == keepRecent {
		return recent
	}
	best := slices.Clone(recent)
	slices.SortStableFunc(best, func(a, b int) int { return cmp.Compare(entryScore(past[b]), entryScore(past[a])) })
	if hb.keep == keepBest {
		return best
	}
	out := make([]int, 0, len(past))
	taken := make([]bool, len(past))
	for k := range recent {
		for _, i := range []int{recent[k], best[k]} {
			if !taken[i] {
				taken[i] = true
				out = append(out, i)
			}
		}
	}
	return out
}

// entryScore is an entry's score as a number; -1 when it has none.
func entryScore(e map[string]any) float64 {
	switch v := e["score"].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	case int64:
		return float64(v)
	}
	return -1
}

// lessonKey is what makes an entry's lessons the same as another's: its
// insights, improvements and mistakes; ok is false for an entry without
// lessons (such entries differ by their scores and are all kept).
func lessonKey(e map[string]any) (string, bool) {
	var key string
	empty := true
	for _, k := range []string{"insights", "improvements", "mistakes"} {
		s := ""
		if v, ok := e[k]; ok && v != nil {
			s = pyvalue.Str(v)
		}
		empty = empty && s == ""
		key += s + "\x00"
	}
	return key, !empty
}
