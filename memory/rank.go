package memory

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
)

// DefaultRecallLimit is the result size of a [Query] without Limit.
const DefaultRecallLimit = 10

// Rank is how every store answers Recall, so that stores rank identically:
//
//  1. drop memories expired at now and those whose metadata lacks a pair of
//     q.Metadata;
//  2. Similarity: when q.Vector and the memory's vector are set and have the
//     same length, their cosine similarity clamped to [0,1] (mixed with keyword
//     overlap by q.TextWeight when it is positive); otherwise keyword
//     overlap, the share of q.Text's keywords found in the content
//     (keywords: lower-cased letter/digit runs of two or more characters,
//     common English stop words dropped, a plural "s" trimmed). A query
//     without keywords has similarity 0 with everything;
//  3. keep Similarity >= q.Threshold;
//  4. Score = Similarity × 0.5^(age/q.HalfLife) (no decay without HalfLife);
//  5. order by Score, then newer CreatedAt, then ID; keep q.Limit (default
//     10).
//
// Rank does not modify ms; the returned memories are copies. The result
// is never nil.
func Rank(q Query, now time.Time, ms []Memory) []Match {
	qWords := keywords(q.Text)
	out := []Match{}
	for _, m := range ms {
		if m.Expired(now) || !hasMetadata(m.Metadata, q.Metadata) {
			continue
		}
		var sim float64
		if len(q.Vector) > 0 && len(q.Vector) == len(m.Vector) {
			sim = cosine(q.Vector, m.Vector)
			if w := min(1, max(0, q.TextWeight)); w > 0 {
				sim = w*overlap(qWords, keywords(m.Content)) + (1-w)*sim
			}
		} else {
			sim = overlap(qWords, keywords(m.Content))
		}
		if sim < q.Threshold {
			continue
		}
		score := sim
		if q.HalfLife > 0 {
			if age := now.Sub(m.CreatedAt); age > 0 {
				score *= math.Exp2(-float64(age) / float64(q.HalfLife))
			}
		}
		out = append(out, Match{Memory: cloneMemory(m), Similarity: sim, Score: score})
	}
	slices.SortFunc(out, func(a, b Match) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := b.Memory.CreatedAt.Compare(a.Memory.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Memory.ID, b.Memory.ID)
	})
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultRecallLimit
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func hasMetadata(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func overlap(query, doc map[string]struct{}) float64 {
	if len(query) == 0 {
		return 0
	}
	n := 0
	for w := range query {
		if _, ok := doc[w]; ok {
			n++
		}
	}
	return float64(n) / float64(len(query))
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return min(1, max(0, dot/math.Sqrt(na*nb)))
}

// keywords returns the set of normalised keywords of s.
func keywords(s string) map[string]struct{} {
	out := make(map[string]struct{})
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if _, stop := stopWords[f]; stop || len([]rune(f)) < 2 {
			continue
		}
		if len(f) > 3 && strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss") {
			f = f[:len(f)-1]
		}
		out[f] = struct{}{}
	}
	return out
}

var stopWords = func() map[string]struct{} {
	m := make(map[string]struct{})
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does for from
		had has have he her his how i if in into is it its me my no not of on or our she so
		than that the their them then there these they this those to was we were what when where
		which who whom why will with would you your`) {
		m[w] = struct{}{}
	}
	return m
}()
