package cognition

import (
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// tailSplit runs an expression that ends with OrKa's captured line idiom,
// HEAD(.+?)(?:\n|$), as HEAD on regexp2 and the rest of the line by a search
// for "\n", instead of regexp2 stepping through the line a character at a
// time (and lower-casing each one under IgnoreCase).
//
// Why the matches are the same: the idiom runs as (.[^\n]*)(?:\n|$) (see
// [lineTail]). At any position e, that form matches at most one way: "." takes
// the character at e (any character under DotAll; not "\n" without it), the
// greedy [^\n]* runs to the next "\n" or the end of the text, and (?:\n|$)
// then takes the "\n" or holds at the end (first branch "\n", so whatever "$"
// means). It fails only when "." cannot take the character at e. The
// backtracking engine tries HEAD's ways in order and keeps the first that the
// rest completes; so when the rest completes HEAD's first way (what HEAD alone
// matches, at the same start), that is the match. When it does not, the whole
// expression runs from the same position, as written. HEAD has no capturing
// group (group 1 is the idiom's), no option, lookaround or conditional group,
// and the expression no other branch.
//
// The same holds for a captured run of a small ASCII class that ends the
// expression, "SCORE:\s*([0-9.]+)": greedy and last, its first way is the
// longest run, and it fails only when it cannot take one character.
type tailSplit struct {
	headSrc  string
	empty    bool       // the idiom is (.*?): its value may be empty and it never fails
	class    *[256]bool // not the line idiom but a captured run of these ASCII characters, ([0-9.]+)
	dotAll   bool       // "." takes "\n" too
	head     *regexp2.Regexp
	anchored *regexp2.Regexp // \G(?:HEAD)
	prog     *headProg       // HEAD without regexp2, for anchored attempts; nil: regexp2
}

// compileTail compiles split's head with opts, or returns nil when the split
// does not apply: HEAD has a group other than (?:, or a capture.
func compileTail(split *tailSplit, opts regexp2.RegexOptions, p *Pattern) *tailSplit {
	if split == nil || len(p.re.GetGroupNumbers()) != 2 || p.group != 1 {
		return nil
	}
	for i := strings.Index(split.headSrc, "(?"); i >= 0; {
		if !strings.HasPrefix(split.headSrc[i:], "(?:") {
			return nil
		}
		j := strings.Index(split.headSrc[i+1:], "(?")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	head, err := regexp2.Compile(split.headSrc, opts)
	if err != nil || len(head.GetGroupNumbers()) != 1 {
		return nil
	}
	anchored, err := regexp2.Compile(`\G(?:`+split.headSrc+`)`, opts)
	if err != nil || len(anchored.GetGroupNumbers()) != 1 {
		return nil
	}
	head.MatchTimeout, anchored.MatchTimeout = p.limits.MatchTimeout, p.limits.MatchTimeout
	out := *split
	out.head, out.anchored, out.dotAll = head, anchored, opts&regexp2.Singleline != 0
	out.prog = compileHead(split.headSrc, opts&regexp2.IgnoreCase != 0)
	return &out
}

// complete finishes a match of HEAD from rune start to rune e with the line
// idiom; ok is false when the idiom cannot match at e.
func (ts *tailSplit) complete(t *Text, start, e int) (h hit, ok bool) {
	b := t.byteOffset(false, e)
	if ts.class != nil {
		// The run is greedy and ends the expression: its first way is the
		// longest, and it needs one character. ASCII: a byte is a rune.
		j := b
		for j < len(t.s) && ts.class[t.s[j]] {
			j++
		}
		if j == b {
			return hit{}, false
		}
		ge := e + j - b
		return hit{index: start, length: ge - start, gs: e, ge: ge, gok: true}, true
	}
	from := b
	if !ts.empty {
		if b >= len(t.s) || (!ts.dotAll && t.s[b] == '\n') {
			return hit{}, false
		}
		_, size := utf8.DecodeRuneInString(t.s[b:])
		from = b + size
	}
	nl, end := t.runeLen(), t.runeLen()
	if j := strings.IndexByte(t.s[from:], '\n'); j >= 0 {
		nl = t.runeIndex(false, from+j)
		end = nl + 1
	}
	return hit{index: start, length: end - start, gs: e, ge: nl, gok: true}, true
}

// runeLen is the length of the text in runes.
func (t *Text) runeLen() int {
	switch {
	case t.r != nil:
		return len(t.r)
	case t.ascii:
		return len(t.s)
	}
	return t.runeIndex(false, len(t.s))
}
