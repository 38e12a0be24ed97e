package load

import (
	"sort"

	"github.com/cogloop/cogloop/internal/textdist"
)

// Closest returns the candidate nearest to name, at most two edits away, for
// a "did you mean" hint; "" when none is that close. Ties go to the candidate
// first in sorted order.
func Closest(name string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", 3
	for _, cand := range sorted {
		if len(cand) > len(name)+2 || len(name) > len(cand)+2 || cand == name {
			continue
		}
		if d := textdist.Bounded([]rune(name), []rune(cand), 2); d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}
