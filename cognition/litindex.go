package cognition

import (
	"math"
	"math/bits"
	"strings"
)

// litIndex finds, in one pass over a text, every occurrence of every literal
// of an Extractor's prefilters (those of one case mode), so that its patterns
// do not each search the text for each of their literals. A table keyed by a
// hash of a literal's first two bytes says which literals may start at a
// position; each is checked there. Every position is read, so overlapping
// occurrences are all found: the first occurrence at or after any offset is
// the one strings.Index would find.
type litIndex struct {
	lits  []string     // at most 64, each of two bytes or more
	first [4096]uint64 // pairHash of a literal's first two bytes → the literals' bits
}

// litOcc is an occurrence of literal lit at byte pos.
type litOcc struct {
	pos int32
	lit uint8
}

// pairHash maps a byte pair to one of 4096 entries. A pair of ASCII bytes
// keeps all of its first byte's seven bits and mixes two of them with the
// second's: cheap, and sparse enough for a few dozen literals.
func pairHash(a, b byte) uint32 { return (uint32(a)<<5 ^ uint32(b)) & 4095 }

// newLitIndex indexes the literals of pres (which share a case mode) and
// points each prefilter at the index with the bits of its literals. It does
// nothing when there are too many literals or one is shorter than two bytes;
// the prefilters then search for each literal.
func newLitIndex(pres []*prefilter) {
	ix := new(litIndex)
	id := make(map[string]int)
	for _, pf := range pres {
		for _, lit := range pf.lits {
			if len(lit) < 2 {
				return
			}
			if _, ok := id[lit]; !ok {
				if len(ix.lits) == 64 {
					return
				}
				id[lit] = len(ix.lits)
				ix.first[pairHash(lit[0], lit[1])] |= 1 << len(ix.lits)
				ix.lits = append(ix.lits, lit)
			}
		}
	}
	for _, pf := range pres {
		pf.index, pf.mask = ix, 0
		for _, lit := range pf.lits {
			pf.mask |= 1 << id[lit]
		}
	}
}

// occurrences lists the occurrences of ix's literals in s, by position.
func (ix *litIndex) occurrences(s string) []litOcc {
	var occ []litOcc
	if len(s) < 2 {
		return nil
	}
	prev := s[0]
	for i, c := range []byte(s[1:]) {
		m := ix.first[pairHash(prev, c)]
		prev = c
		for m != 0 {
			k := bits.TrailingZeros64(m)
			m &= m - 1
			if strings.HasPrefix(s[i:], ix.lits[k]) {
				occ = append(occ, litOcc{pos: int32(i), lit: uint8(k)}) //nolint:gosec // k < 64, a bit of m
			}
		}
	}
	return occ
}

// indexLiterals makes the occurrence list of ix's literals in searchable(fold),
// once per text.
func (t *Text) indexLiterals(fold bool, ix *litIndex) {
	i := b2i(fold)
	if t.occIx[i] != ix && len(t.s) <= math.MaxInt32/2 { // positions fit litOcc (the lower-cased text may be longer)
		t.occ[i], t.occIx[i] = ix.occurrences(t.searchable(fold)), ix
	}
}

// nextIndexed is litCursor.next for a prefilter whose literals t has indexed:
// the byte offset of the first occurrence at or after byte b, or -1; ok is
// false when t has no list for the prefilter's index.
func (lc *litCursor) nextIndexed(pf *prefilter, t *Text, b int) (at int, ok bool) {
	i := b2i(pf.fold)
	if pf.index == nil || t.occIx[i] != pf.index {
		return 0, false
	}
	occ := t.occ[i]
	k := lc.k
	if b < lc.b {
		k = 0
	}
	for k < len(occ) && int(occ[k].pos) < b {
		k++
	}
	lc.k, lc.b = k, b
	for ; k < len(occ); k++ {
		if pf.mask&(1<<occ[k].lit) != 0 {
			return int(occ[k].pos), true
		}
	}
	return -1, true
}
