package cognition

import "unicode/utf8"

// MaxSimilarityText is how much of each text Similarity compares, in runes.
const MaxSimilarityText = 10_000

// Similarity is the normalised Levenshtein similarity of a and b,
// 1 - distance/max(len(a), len(b)) over runes, after cutting each text to
// MaxSimilarityText runes; two empty texts are identical (1). Texts whose
// similarity is below floor may be reported as any value below floor: the edit
// distance is computed in a band of width (1-floor)·max(len), so comparing two
// 10,000-character texts against a floor of 0.95 costs about a million steps, not
// a hundred million. A floor of 0 computes the exact similarity.
func Similarity(a, b string, floor float64) float64 {
	ra, rb := cutRunes(a), cutRunes(b)
	n, m := len(ra), len(rb)
	longest := max(n, m)
	if longest == 0 {
		return 1
	}
	if floor < 0 {
		floor = 0
	}
	// Distances above k cannot reach floor.
	k := int((1-floor)*float64(longest)) + 1
	if k > longest {
		k = longest
	}
	if abs(n-m) > k {
		return 0 // the length gap alone puts it below floor
	}
	// A common prefix and suffix cost nothing; only the middle needs the band.
	for len(ra) > 0 && len(rb) > 0 && ra[0] == rb[0] {
		ra, rb = ra[1:], rb[1:]
	}
	for len(ra) > 0 && len(rb) > 0 && ra[len(ra)-1] == rb[len(rb)-1] {
		ra, rb = ra[:len(ra)-1], rb[:len(rb)-1]
	}
	d := bandedDistance(ra, rb, k)
	if d > k {
		d = longest // outside the band: below floor, report 0
	}
	return 1 - float64(d)/float64(longest)
}

func cutRunes(s string) []rune {
	if utf8.RuneCountInString(s) <= MaxSimilarityText {
		return []rune(s)
	}
	out := make([]rune, 0, MaxSimilarityText)
	for _, r := range s {
		if len(out) == MaxSimilarityText {
			break
		}
		out = append(out, r)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bandedDistance is the Levenshtein distance of a and b when it is at most k,
// else some value above k. Only cells within k of the diagonal are computed.
func bandedDistance(a, b []rune, k int) int {
	n, m := len(a), len(b)
	const inf = 1 << 30
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := range prev {
		if j <= k {
			prev[j] = j
		} else {
			prev[j] = inf
		}
	}
	for i := 1; i <= n; i++ {
		lo, hi := max(1, i-k), min(m, i+k)
		// Only the band and its two edges are ever read: set the edges, fill the band.
		if lo == 1 {
			cur[0] = i
		} else {
			cur[lo-1] = inf
		}
		if hi < m {
			cur[hi+1] = inf
		}
		best := inf
		if lo == 1 {
			best = cur[0]
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[j-1] + cost
			if prev[j]+1 < v {
				v = prev[j] + 1
			}
			if cur[j-1]+1 < v {
				v = cur[j-1] + 1
			}
			cur[j] = v
			if v < best {
				best = v
			}
		}
		if best > k {
			return k + 1
		}
		prev, cur = cur, prev
	}
	return prev[m]
}
