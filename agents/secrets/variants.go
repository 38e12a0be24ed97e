package secrets

import (
	"slices"
	"strings"
	"sync"
)

// Scrubbing catches a secret's near-copies as well as the value itself: the
// value in any letter case, with whitespace anywhere inside it (spaced out,
// split by a newline), and any long enough piece of it (the key minus a
// character). A secret of fewer than minScrubLen bytes is matched exactly
// only (a placeholder like "x" would otherwise rewrite ordinary words).
//
// The search is one pass over the text per secret, with a rolling hash of the
// last window of letters (lowercased, whitespace skipped): linear in the text,
// no allocation for text that holds no match.

// Piece lengths: a piece of a secret is scrubbed when it is at least
// minPiece bytes long and at least half the secret (so a common prefix like
// "sk-proj-" is never enough), or the whole secret when it is shorter than
// minPiece; maxWindow caps the window for very long secrets.
const (
	minPiece  = 16
	maxWindow = 256
)

// MaxGap is the longest run of whitespace a near-copy may have inside it: a
// longer one separates two pieces of text (and bounds a near-copy's length).
const MaxGap = 16

// Letters is the most letters (bytes other than whitespace) a near-copy of
// one of secrets holds: a caller that lets text go in pieces holds back this
// many letters minus one at the end, so no near-copy is split.
func Letters(secrets ...Secret) int {
	n := 0
	for _, s := range secrets {
		n = max(n, len(normal(s.Reveal())))
	}
	return n
}

// IsSpace reports whether c is whitespace a near-copy may hold.
func IsSpace(c byte) bool { return isSpace(c) }

const hashBase = 1099511628211 // the FNV prime: odd, well spread

// span is a scrubbed range of a text, [start, end), and the secret found there.
type span struct {
	start, end int
	sec        Secret
}

// isSpace is the whitespace a near-copy may have inside it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// fold maps a byte to its lowercase, and whitespace to 0 (skipped); a NUL
// byte, which no key holds, breaks a match like any other byte.
var fold = func() (t [256]byte) {
	for i := range t {
		t[i] = lower(byte(i))
		if isSpace(byte(i)) {
			t[i] = 0
		}
	}
	t[0] = 1
	return t
}()

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// window is the length of the pieces of a secret of n letters that are scrubbed.
func window(n int) int {
	if n < minPiece {
		return n
	}
	return min(max(minPiece, (n+1)/2), maxWindow)
}

// normal is v lowercased without whitespace.
func normal(v string) []byte {
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isSpace(c) {
			out = append(out, lower(c))
		}
	}
	return out
}

// finder finds the near-copies of one secret.
type finder struct {
	norm   []byte
	m      int
	pow    uint64     // hashBase^(m-1)
	bits   [64]uint64 // a 4096-bit filter of the windows' hashes
	hashes []uint64   // the hash of the window at each offset of norm
}

// finders caches the finders of the last secrets seen, by value (the same key
// is wrapped anew on every call that reads it from the environment); it is
// emptied when it holds maxFinders.
var finders struct {
	sync.RWMutex
	m map[string]*finder
}

const maxFinders = 64

func finderOf(v string) *finder {
	finders.RLock()
	f, ok := finders.m[v]
	finders.RUnlock()
	if ok {
		return f
	}
	f = newFinder(v)
	finders.Lock()
	if finders.m == nil || len(finders.m) >= maxFinders {
		finders.m = map[string]*finder{}
	}
	finders.m[v] = f
	finders.Unlock()
	return f
}

func newFinder(v string) *finder {
	f := &finder{norm: normal(v)}
	f.m = window(len(f.norm))
	if f.m == 0 {
		return nil
	}
	f.pow = 1
	for range f.m - 1 {
		f.pow *= hashBase
	}
	var h uint64
	for i, c := range f.norm {
		if i >= f.m {
			h -= uint64(f.norm[i-f.m]) * f.pow
		}
		h = h*hashBase + uint64(c)
		if i >= f.m-1 {
			f.hashes = append(f.hashes, h)
			f.bits[(h>>6)&63] |= 1 << (h & 63)
		}
	}
	return f
}

// find appends to out the ranges of s that are near-copies of the secret
// (merged where they overlap or touch).
func (f *finder) find(s string, sec Secret, out []span) []span {
	var ring [maxWindow]byte
	var pos [maxWindow]int
	var h uint64
	n, head, gap := 0, 0, 0 // letters in the window; index of the oldest; whitespace run
	from := len(out)
	for i := 0; i < len(s); i++ {
		c := fold[s[i]]
		if c == 0 {
			// Whitespace inside a near-copy: a longer run than MaxGap ends it.
			if gap++; gap > MaxGap {
				n, head, h = 0, 0, 0
			}
			continue
		}
		gap = 0
		if n == f.m {
			h -= uint64(ring[head]) * f.pow
			ring[head], pos[head] = c, i
			if head++; head == f.m {
				head = 0
			}
		} else {
			ring[n], pos[n] = c, i
			n++
		}
		h = h*hashBase + uint64(c)
		if n < f.m || f.bits[(h>>6)&63]&(1<<(h&63)) == 0 || !f.matches(h, ring[:f.m], head) {
			continue
		}
		start := pos[head]
		if k := len(out) - 1; k >= from && start <= out[k].end {
			out[k].end = i + 1
		} else {
			out = append(out, span{start: start, end: i + 1, sec: sec})
		}
	}
	return out
}

// matches reports whether the window (ring, oldest at head) is one of the
// secret's windows.
func (f *finder) matches(h uint64, ring []byte, head int) bool {
	for off, wh := range f.hashes {
		if wh != h {
			continue
		}
		want := f.norm[off : off+f.m]
		if string(ring[head:]) == string(want[:f.m-head]) && string(ring[:head]) == string(want[f.m-head:]) {
			return true
		}
	}
	return false
}

// spans finds the ranges of s to scrub for secrets (the longer secret wins
// where two overlap), in order, not overlapping.
func spans(s string, secrets []Secret) []span {
	var out []span
	for _, sec := range secrets {
		v := sec.Reveal()
		switch {
		case v == "":
		case len(v) < minScrubLen:
			for from := 0; ; {
				i := strings.Index(s[from:], v)
				if i < 0 {
					break
				}
				out = append(out, span{start: from + i, end: from + i + len(v), sec: sec})
				from += i + len(v)
			}
		default:
			if f := finderOf(v); f != nil {
				out = f.find(s, sec, out)
			}
		}
	}
	if len(out) < 2 {
		return out
	}
	// Longer secrets first among equals, then merge: the first of overlapping
	// spans names the whole.
	slices.SortStableFunc(out, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return len(b.sec.Reveal()) - len(a.sec.Reveal())
	})
	merged := out[:1]
	for _, sp := range out[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}
