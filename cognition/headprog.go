package cognition

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// headProg matches the head of a [tailSplit] without regexp2, for the shape of
// OrKa's lesson patterns: literal words and groups of alternative words (a
// character may be optional: "provides?"), and runs of white space or of a few
// punctuation characters ("\s+", "[:\s]+"). Anything else in the head leaves
// it to regexp2.
//
// It matches the way the backtracking engine does: alternatives in order
// (optional characters first taken, then not), a run as long as it can be.
// A run never gives characters back to what follows it, because a program is
// only built when what follows a run cannot start with a character of the run
// (and a run at the end of the head is taken whole, which is the head's first
// way, see [tailSplit]). Under IgnoreCase it reads the lower-cased text with
// lower-cased words: regexp2 compares unicode.ToLower of each character of the
// text with the lower-cased pattern, which is the same.
type headProg struct {
	segs []headSeg
	fold bool // the words are lower-cased and read the lower-cased text
}

// headSeg is a set of words, in the engine's order of trying them, or a run.
type headSeg struct {
	words []string
	space bool   // the run takes white space (\s: unicode.IsSpace)
	chars string // and these ASCII characters (no letters)
	min   int    // 0 for "*", 1 for "+"
	run   bool
}

// maxHeadWays bounds the product of the word sets' sizes: the work of one
// match is at most that many attempts of the segments.
const maxHeadWays = 4096

// compileHead reads src, the head in regexp2 syntax, or returns nil.
func compileHead(src string, fold bool) *headProg {
	segs := parseHead(src)
	if segs == nil || !checkHead(segs, fold) {
		return nil
	}
	return &headProg{segs: segs, fold: fold}
}

// parseHead reads src into segments: runs, and literal segments each holding
// the words of the units between two runs; nil when src is outside the
// grammar.
func parseHead(src string) []headSeg {
	hp := headParser{s: src}
	var segs []headSeg
	acc := []string{""} // words of the literal segment being built
	flush := func() {
		if len(acc) != 1 || acc[0] != "" {
			segs = append(segs, headSeg{words: acc})
		}
		acc = []string{""}
	}
	for hp.i < len(hp.s) && !hp.failed {
		if seg, ok := hp.run(); ok {
			flush()
			segs = append(segs, seg)
			continue
		}
		words := hp.unit()
		if hp.failed {
			return nil
		}
		if acc = cross(acc, words); acc == nil {
			return nil
		}
	}
	if hp.failed {
		return nil
	}
	flush()
	return segs
}

// checkHead reports whether segs make a program that matches as the engine
// does: it starts with words, no run is followed by what it could take, and
// the ways stay bounded. Under fold it lower-cases the words.
func checkHead(segs []headSeg, fold bool) bool {
	if len(segs) == 0 || segs[0].run {
		return false
	}
	ways := 1
	for i, seg := range segs {
		if seg.run {
			if i+1 < len(segs) && !segs[i+1].startsOutside(seg) {
				return false // the run might have to give characters back
			}
			continue
		}
		if ways *= len(seg.words); ways > maxHeadWays {
			return false
		}
		if fold {
			for j, w := range seg.words {
				segs[i].words[j] = strings.ToLower(w) // ASCII: unicode.ToLower byte by byte
			}
		}
	}
	return true
}

// startsOutside reports whether no word of seg is empty or starts with a
// character of run (after lower-casing: the words are ASCII).
func (seg headSeg) startsOutside(run headSeg) bool {
	if seg.run {
		return false
	}
	for _, w := range seg.words {
		if w == "" || run.takes(rune(unicode.ToLower(rune(w[0])))) || run.takes(rune(w[0])) {
			return false
		}
	}
	return true
}

func (seg headSeg) takes(r rune) bool {
	if r < utf8.RuneSelf && strings.ContainsRune(seg.chars, r) {
		return true
	}
	return seg.space && unicode.IsSpace(r)
}

// match matches the program at byte b of text (the text, or its lower-cased
// form under fold) and returns the byte offset where the head's first way
// ends.
func (hp *headProg) match(text string, b int) (end int, ok bool) {
	return hp.matchFrom(0, text, b)
}

func (hp *headProg) matchFrom(k int, text string, b int) (int, bool) {
	if k == len(hp.segs) {
		return b, true
	}
	seg := &hp.segs[k]
	if seg.run {
		n := 0
		for b < len(text) {
			r, size := rune(text[b]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[b:])
			}
			if !seg.takes(r) {
				break
			}
			b += size
			n++
		}
		if n < seg.min {
			return 0, false
		}
		return hp.matchFrom(k+1, text, b)
	}
	for _, w := range seg.words {
		if strings.HasPrefix(text[b:], w) {
			if end, ok := hp.matchFrom(k+1, text, b+len(w)); ok {
				return end, true
			}
		}
	}
	return 0, false
}

// headParser reads the grammar compileHead accepts.
type headParser struct {
	s      string
	i      int
	failed bool
}

// wordChar reports whether c stands for itself in a head, outside classes.
func wordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte(" :,;'\"!-_/&%=<>~@", c) >= 0
}

// run reads "\s+", "\s*", "[…]+" or "[…]*" with a class of \s and
// punctuation, if one starts at i.
func (hp *headParser) run() (headSeg, bool) {
	var seg headSeg
	j := hp.i
	switch {
	case strings.HasPrefix(hp.s[j:], `\s`):
		seg.space = true
		j += 2
	case strings.HasPrefix(hp.s[j:], "["):
		var ok bool
		if j, ok = hp.class(j+1, &seg); !ok {
			return headSeg{}, false
		}
	default:
		return headSeg{}, false
	}
	return hp.quantifier(j, seg)
}

// class reads a class of \s and punctuation from j (just past its "[") into
// seg and returns the offset past its "]".
func (hp *headParser) class(j int, seg *headSeg) (int, bool) {
	for j < len(hp.s) && hp.s[j] != ']' {
		switch c := hp.s[j]; {
		case strings.HasPrefix(hp.s[j:], `\s`):
			seg.space = true
			j += 2
		case c != '^' && c != '-' && c != '\\' && c != '[' && c < utf8.RuneSelf && !unicode.IsLetter(rune(c)) && c > ' ':
			seg.chars += string(c)
			j++
		default:
			return j, false
		}
	}
	if j >= len(hp.s) || (!seg.space && seg.chars == "") {
		return j, false
	}
	return j + 1, true
}

// quantifier reads the "+" or "*" of the run seg at j; anything else fails
// the parse.
func (hp *headParser) quantifier(j int, seg headSeg) (headSeg, bool) {
	if j >= len(hp.s) || (hp.s[j] != '+' && hp.s[j] != '*') {
		hp.failed = true // a class without a quantifier, or another one
		return headSeg{}, false
	}
	if hp.s[j] == '+' {
		seg.min = 1
	}
	j++
	if j < len(hp.s) && (hp.s[j] == '?' || hp.s[j] == '+' || hp.s[j] == '*' || hp.s[j] == '{') {
		hp.failed = true // lazy, possessive or nested
		return headSeg{}, false
	}
	hp.i, seg.run = j, true
	return seg, true
}

// unit reads a word character or a "(?:…|…)" group of words, with an
// optional "?", and returns its words in the engine's order.
func (hp *headParser) unit() []string {
	var words []string
	switch c := hp.s[hp.i]; {
	case strings.HasPrefix(hp.s[hp.i:], "(?:"):
		hp.i += 3
		words = hp.branches()
	case wordChar(c):
		words = []string{string(c)}
		hp.i++
	default:
		hp.failed = true
		return nil
	}
	return hp.optional(words)
}

// optional applies a "?" that follows: the words, then the empty word.
func (hp *headParser) optional(words []string) []string {
	if hp.i < len(hp.s) && hp.s[hp.i] == '?' {
		hp.i++
		if hp.i < len(hp.s) && (hp.s[hp.i] == '?' || hp.s[hp.i] == '+') {
			hp.failed = true
			return nil
		}
		return append(append([]string(nil), words...), "")
	}
	if hp.i < len(hp.s) && strings.IndexByte("*+{", hp.s[hp.i]) >= 0 {
		hp.failed = true
	}
	return words
}

// branches reads the alternatives of a group up to its ")", each a sequence
// of word characters with optional "?".
func (hp *headParser) branches() []string {
	var out []string
	acc := []string{""}
	for hp.i < len(hp.s) && !hp.failed {
		switch c := hp.s[hp.i]; {
		case c == '|' || c == ')':
			out = append(out, acc...)
			acc = []string{""}
			hp.i++
			if c == ')' {
				if len(out) > maxHeadWays {
					hp.failed = true
				}
				return dedupe2(out)
			}
		case wordChar(c):
			hp.i++
			if acc = cross(acc, hp.optional([]string{string(c)})); acc == nil {
				hp.failed = true
			}
		default:
			hp.failed = true
		}
	}
	hp.failed = true
	return nil
}
