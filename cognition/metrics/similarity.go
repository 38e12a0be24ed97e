package metrics

import (
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/textdist"
)

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
	d := textdist.Bounded(ra, rb, k)
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
