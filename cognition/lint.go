package cognition

import (
	"fmt"
	"strings"
)

// Lint returns what is doubtful about a valid pattern, for the caller to show as
// load warnings: nested quantifiers ([NestedQuantifier]) and, when number is
// true (a score pattern), no capturing group and a whole match that cannot be
// a number.
func (p *Pattern) Lint(number bool) []error {
	var out []error
	if n := p.nested; n.found {
		out = append(out, fmt.Errorf("pattern %q has a repeated group that can match the same text in many ways, %q at character %d: it can backtrack for the whole regex budget on model output; rewrite it without the nested repetition", p.expr, n.group, n.at+1))
	}
	if number && p.group == 0 && !canBeNumber(p) {
		out = append(out, fmt.Errorf("pattern %q has no capturing group and its whole match (which must contain %s) cannot be read as a number, so it never yields a score; put the number in a group, as in SCORE:\\s*([0-9.]+)", p.expr, quoteAll(p.pre.lits)))
	}
	return out
}

// canBeNumber reports whether the whole match of a group-less pattern may be a
// number: false when every match must contain a literal with a character no
// score form ("0.85", "-1e-9", "85 %", "8/10", "7 out of 10") has.
func canBeNumber(p *Pattern) bool {
	if !p.hasPre {
		return true // nothing known about the matches
	}
	for _, lit := range p.pre.lits {
		l := strings.ReplaceAll(strings.ToLower(lit), "out of", "")
		if strings.Trim(l, "0123456789.+-e%/ \t") == "" {
			return true
		}
	}
	return false
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " or ")
}

// NestedQuantifier finds a group that is repeated without bound ("*", "+",
// "{n,}") and whose content can itself repeat without bound or has
// alternatives that match the same text ("(a+)+", "(a*)*", "(\s*\w+)*",
// "(a|a)*", "(a|ab)+"): the shapes that make a backtracking engine try
// exponentially many ways on a text that almost matches. It returns the
// character index of the group's "(" and the group with its quantifier. The
// check reads Python regex syntax; it is a heuristic that errs towards silence.
func NestedQuantifier(expr string) (at int, group string, found bool) {
	type open struct {
		start, altStart int
		unbounded       bool
		alts            []string
	}
	rs := []rune(expr)
	stack := []open{{start: -1}}
	for i := 0; i < len(rs); i++ {
		top := &stack[len(stack)-1]
		switch rs[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(rs, i)
		case '(':
			stack = append(stack, open{start: i, altStart: groupBody(rs, i)})
			i = stack[len(stack)-1].altStart - 1
		case '|':
			top.alts = append(top.alts, string(rs[top.altStart:i]))
			top.altStart = i + 1
		case ')':
			if len(stack) == 1 {
				continue // unbalanced: regexp2 refused it already
			}
			g := *top
			g.alts = append(g.alts, string(rs[g.altStart:i]))
			stack = stack[:len(stack)-1]
			qEnd, unbounded := quantifierAt(rs, i+1)
			if unbounded && (g.unbounded || overlapping(g.alts)) {
				return g.start, string(rs[g.start:qEnd]), true
			}
			parent := &stack[len(stack)-1]
			parent.unbounded = parent.unbounded || g.unbounded || unbounded
			i = qEnd - 1
		default:
			if _, unbounded := quantifierAt(rs, i); unbounded && i > 0 {
				top.unbounded = true
			}
		}
	}
	return 0, "", false
}

// groupBody returns the index after a group's opening: "(", "(?:", "(?P<n>",
// "(?<n>", "(?=", "(?<=", "(?i:" and the like.
func groupBody(rs []rune, i int) int {
	j := i + 1
	if j >= len(rs) || rs[j] != '?' {
		return j
	}
	for k := j + 1; k < len(rs); k++ {
		switch rs[k] {
		case ':', '=', '!':
			if rs[k] == ':' || k == j+1 || (k == j+2 && rs[j+1] == '<') {
				return k + 1
			}
		case '>':
			return k + 1
		case ')':
			return k
		}
	}
	return len(rs)
}

// classEnd returns the index of the "]" that closes the class opened at i.
func classEnd(rs []rune, i int) int {
	j := i + 1
	if j < len(rs) && rs[j] == '^' {
		j++
	}
	if j < len(rs) && rs[j] == ']' {
		j++
	}
	for ; j < len(rs) && rs[j] != ']'; j++ {
		if rs[j] == '\\' {
			j++
		}
	}
	return j
}

// quantifierAt reads a quantifier at i ("*", "+", "?", "{n}", "{n,}", "{n,m}",
// with a lazy or possessive suffix) and returns the index after it and whether
// it is unbounded.
func quantifierAt(rs []rune, i int) (end int, unbounded bool) {
	if i >= len(rs) {
		return i, false
	}
	switch rs[i] {
	case '*', '+':
		end, unbounded = i+1, true
	case '?':
		end = i + 1
	case '{':
		var ok bool
		if end, unbounded, ok = countedAt(rs, i+1); !ok {
			return i, false
		}
	default:
		return i, false
	}
	if end < len(rs) && (rs[end] == '?' || rs[end] == '+') {
		end++
	}
	return end, unbounded
}

// countedAt reads "n}", "n,}" or "n,m}" at i (just past a "{") and returns
// the index after the "}" and whether the count is unbounded.
func countedAt(rs []rune, i int) (end int, unbounded, ok bool) {
	j := digitsEnd(rs, i)
	switch {
	case j == i || j >= len(rs):
		return 0, false, false
	case rs[j] == '}':
		return j + 1, false, true
	case rs[j] == ',' && j+1 < len(rs) && rs[j+1] == '}':
		return j + 2, true, true
	case rs[j] == ',':
		k := digitsEnd(rs, j+1)
		if k == j+1 || k >= len(rs) || rs[k] != '}' {
			return 0, false, false
		}
		return k + 1, false, true
	}
	return 0, false, false
}

// digitsEnd returns the index after the ASCII digits that start at i.
func digitsEnd(rs []rune, i int) int {
	for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
		i++
	}
	return i
}

// overlapping reports whether two alternatives can match the same start: one
// is the other or a prefix of it.
func overlapping(alts []string) bool {
	for i, a := range alts {
		for _, b := range alts[i+1:] {
			if a != "" && b != "" && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)) {
				return true
			}
		}
	}
	return false
}
