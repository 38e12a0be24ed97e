package textdist

// Bounded is the Levenshtein distance of a and b when it is at most k, else
// some value above k. Only cells within k of the diagonal are computed.
func Bounded(a, b []rune, k int) int {
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

// Typo is the optimal string alignment distance of a and b: insertions,
// deletions, substitutions and transpositions of adjacent bytes, each one edit.
func Typo(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
