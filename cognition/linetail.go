package cognition

import (
	"strings"

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
type tailSplit struct {
	headSrc  string
	empty    bool // the idiom is (.*?): its value may be empty and it never fails
	dotAll   bool // "." takes "\n" too
	head     *regexp2.Regexp
	anchored *regexp2.Regexp // \G(?:HEAD)
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
	return &out
}

// complete finishes a match of HEAD, m, with the line idiom; ok is false when
// the idiom cannot match where HEAD ended.
func (ts *tailSplit) complete(t *Text, m *regexp2.Match) (h hit, ok bool) {
	r := t.Runes()
	e := m.Index + m.Length
	from := e
	if !ts.empty {
		if e >= len(r) || (!ts.dotAll && r[e] == '\n') {
			return hit{}, false
		}
		from = e + 1
	}
	nl := t.indexNewline(from)
	end := nl
	if nl < len(r) {
		end = nl + 1
	}
	return hit{index: m.Index, length: end - m.Index, gs: e, ge: nl, gok: true}, true
}

// indexNewline returns the rune index of the first "\n" at or after rune i, or
// the text's length in runes.
func (t *Text) indexNewline(i int) int {
	b := t.byteOffset(false, i)
	j := strings.IndexByte(t.s[b:], '\n')
	if j < 0 {
		return len(t.Runes())
	}
	return t.runeIndex(false, b+j)
}
