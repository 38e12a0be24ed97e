package cognition

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// The RE2 path: an expression that Go's regexp package runs with the same
// matches as regexp2 is also compiled with it, and a text for which the two
// agree runs there (linear time, no []rune copy, no per-match allocation of
// regexp2's Match). Everything else runs on regexp2.
//
// The two engines find the same leftmost-first match, groups included, for an
// expression without backreferences, lookaround, atomic groups or inline
// flags, that never matches the empty string and whose repetitions never
// repeat an empty match. They differ in what some constructs mean on some
// texts, which decides the text side:
//
//   - \s \S \d \D \w \W \b \B and case folding are Unicode-aware in .NET and
//     ASCII (or Unicode simple folding) in RE2, and .NET's \s also matches \v:
//     an expression with any of them, or compiled with IgnoreCase, runs on RE2
//     only for ASCII texts without \v.
//   - $ without Multiline matches before a final newline in .NET and only at
//     the end in RE2: an expression with a $ runs on RE2 only for texts that
//     do not end with a newline — except OrKa's idiom (?:\n|$) at the very end
//     of the expression, where both take the newline.
//
// The differential tests run every expression of the pattern corpus both ways.

// re2Pattern is the RE2 form of a Pattern and the texts it may run on.
type re2Pattern struct {
	re        *regexp.Regexp
	asciiOnly bool // run only on ASCII texts without \v
	dollar    bool // run only on texts that do not end with "\n"
}

// compileRE2 returns the RE2 form of src (regexp2 syntax, after the Python
// translation), or nil when RE2 cannot be trusted to find the same matches.
func compileRE2(src string, o PatternOptions) *re2Pattern {
	if !re2Syntax(src) {
		return nil
	}
	flags := syntax.Perl
	if o.DotAll {
		flags |= syntax.DotNL
	}
	if o.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(src, flags)
	if err != nil || canBeEmpty(tree) || emptyLoop(tree) {
		return nil
	}
	prefix := ""
	switch {
	case o.DotAll && o.IgnoreCase:
		prefix = "(?is)"
	case o.DotAll:
		prefix = "(?s)"
	case o.IgnoreCase:
		prefix = "(?i)"
	}
	re, err := regexp.Compile(prefix + src)
	if err != nil {
		return nil
	}
	rp := &re2Pattern{re: re, asciiOnly: o.IgnoreCase || hasClassEscape(src)}
	rp.dollar = hasDollar(tree, true)
	return rp
}

// re2Syntax reports whether src uses only syntax that means the same in both
// engines: ASCII, no inline flags or group kinds other than (?: and named
// groups, no \digit (backreference or octal), no \p classes, no POSIX classes
// or .NET class subtraction.
func re2Syntax(src string) bool {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c >= 0x80 {
			return false
		}
		switch c {
		case '\\':
			if i+1 >= len(src) || !re2Escape(src[i+1]) {
				return false
			}
			i++
		case '(':
			if strings.HasPrefix(src[i+1:], "?") && !re2Group(src[i+2:]) {
				return false
			}
		case '[':
			if strings.HasPrefix(src[i:], "[:") {
				return false
			}
		case '-':
			if strings.HasPrefix(src[i:], "-[") {
				return false
			}
		}
	}
	return true
}

// re2Escape reports whether the escape \n means the same in both engines:
// not a backreference or octal, \p class, \Q…\E quote, \x or \k.
func re2Escape(n byte) bool {
	return (n < '0' || n > '9') && strings.IndexByte("pPQExk", n) < 0
}

// re2Group reports whether a group "(?" followed by rest is one both engines
// read alike: non-capturing "(?:" or named "(?<name>".
func re2Group(rest string) bool {
	named := strings.HasPrefix(rest, "<") && len(rest) > 1 && rest[1] != '=' && rest[1] != '!'
	return strings.HasPrefix(rest, ":") || named
}

// hasClassEscape reports whether src has \s \S \d \D \w \W \b or \B.
func hasClassEscape(src string) bool {
	for i := 0; i+1 < len(src); i++ {
		if src[i] == '\\' {
			i++
			if strings.IndexByte("sSdDwWbB", src[i]) >= 0 {
				return true
			}
		}
	}
	return false
}

// canBeEmpty reports whether re may match the empty string.
func canBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return canBeEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || canBeEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	}
	return true // star, quest, assertions, empty match
}

// emptyLoop reports whether re repeats something that can match empty, where
// backtracking engines and RE2 may capture differently.
func emptyLoop(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		if canBeEmpty(re.Sub[0]) {
			return true
		}
	}
	for _, s := range re.Sub {
		if emptyLoop(s) {
			return true
		}
	}
	return false
}

// hasDollar reports whether re has a $ (end of text or before a final
// newline) other than in (?:\n|$) as the last element of the whole
// expression (top: re is the whole expression).
func hasDollar(re *syntax.Regexp, top bool) bool {
	if re.Op == syntax.OpEndText && re.Flags&syntax.WasDollar != 0 {
		return true
	}
	subs := re.Sub
	if top {
		if isLineEnd(re) {
			return false
		}
		if re.Op == syntax.OpConcat && len(subs) > 0 && isLineEnd(subs[len(subs)-1]) {
			subs = subs[:len(subs)-1]
		}
	}
	for _, s := range subs {
		if hasDollar(s, false) {
			return true
		}
	}
	return false
}

// isLineEnd reports whether re is (?:\n|$).
func isLineEnd(re *syntax.Regexp) bool {
	return re.Op == syntax.OpAlternate && len(re.Sub) == 2 &&
		re.Sub[0].Op == syntax.OpLiteral && string(re.Sub[0].Rune) == "\n" &&
		re.Sub[1].Op == syntax.OpEndText
}

// fits reports whether the RE2 form may run on t.
func (rp *re2Pattern) fits(t *Text) bool {
	if rp == nil {
		return false
	}
	if rp.asciiOnly && (!t.ascii || t.hasVT()) {
		return false
	}
	return !rp.dollar || !strings.HasSuffix(t.s, "\n")
}

// gate reports whether a match of p in t is possible: the prefilter's
// literals occur, and the budget allows a run of the engine.
func (p *Pattern) gate(t *Text, sc *Scan) (bool, error) {
	if p.hasPre {
		var lc litCursor
		if lc.next(&p.pre, t, 0) < 0 {
			return false, nil
		}
	}
	if !sc.allowAt(sc.now()) {
		return false, errBudget
	}
	return true, nil
}

// firstRE2 is first on the RE2 path.
func (p *Pattern) firstRE2(t *Text, sc *Scan) (start, end int, ok bool, err error) {
	if ok, err := p.gate(t, sc); !ok {
		return 0, 0, false, err
	}
	m := p.re2.re.FindStringSubmatchIndex(t.s)
	if m == nil {
		return 0, 0, false, nil
	}
	if start, end, ok = p.re2Span(m); !ok {
		return 0, 0, false, nil
	}
	return t.runeIndex(false, start), t.runeIndex(false, end), true, nil
}

// eachRE2 is each on the RE2 path. The expression never matches empty, so
// FindAll's matches are those of regexp2's FindNextMatch chain (which starts
// each search where the last match ended).
func (p *Pattern) eachRE2(t *Text, sc *Scan, fn func(start, end int) bool) (truncated bool, err error) {
	if ok, err := p.gate(t, sc); !ok {
		return false, err
	}
	for n, m := range p.re2.re.FindAllStringSubmatchIndex(t.s, maxMatchesPerScan+1) {
		if n == maxMatchesPerScan {
			return true, nil
		}
		if s, e, ok := p.re2Span(m); ok && !fn(t.runeIndex(false, s), t.runeIndex(false, e)) {
			return false, nil
		}
	}
	return false, nil
}

// re2Span is the byte span of the value of a match m (FindStringSubmatchIndex
// form): group 1, or the whole match without a group.
func (p *Pattern) re2Span(m []int) (start, end int, ok bool) {
	g := 0
	if p.group > 0 {
		g = 1
	}
	if m[2*g] < 0 {
		return 0, 0, false
	}
	return m[2*g], m[2*g+1], true
}
