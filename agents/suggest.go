package agents

// Closest returns the candidate nearest to name by edit distance when it is
// close enough to be a typo (at most 2 edits), else "" — for did-you-mean hints.
func Closest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
