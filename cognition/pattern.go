package cognition

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Defaults for [Limits].
const (
	// DefaultMatchTimeout bounds one regex scan of one text.
	DefaultMatchTimeout = 100 * time.Millisecond
	// DefaultMaxInput is how many bytes of a text are scanned; the rest is ignored
	// with a warning.
	DefaultMaxInput = 64 << 10
	// DefaultBudget bounds all the regex work of one Score or Extract call.
	DefaultBudget = time.Second
)

// excerptLen is how many characters of model output an error or warning quotes.
const excerptLen = 80

// maxMatchesPerScan caps the matches one pattern may yield on one text.
const maxMatchesPerScan = 10000

// Limits bound the regex work done on model output. Zero (or negative) fields
// take the defaults.
type Limits struct {
	// MatchTimeout bounds one scan of one text by one pattern (regexp2's
	// per-regex MatchTimeout; the package-level default is never used). The
	// engine checks its clock every 100 ms, so a scan may overrun by that much.
	MatchTimeout time.Duration
	// MaxInput is the number of bytes of each text that is scanned, cut back to a
	// rune boundary. Longer texts are scanned up to the cap and reported in a warning.
	MaxInput int
	// Budget bounds the total regex time of one Score or Extract call; when it is
	// spent the remaining scans are skipped with a warning.
	Budget time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MatchTimeout <= 0 {
		l.MatchTimeout = DefaultMatchTimeout
	}
	if l.MaxInput <= 0 {
		l.MaxInput = DefaultMaxInput
	}
	if l.Budget <= 0 {
		l.Budget = DefaultBudget
	}
	return l
}

// PatternOptions select the regex flags and limits of [CompileOptions].
type PatternOptions struct {
	IgnoreCase bool // Python re.IGNORECASE
	DotAll     bool // Python re.DOTALL: "." matches a newline too
	Limits
}

// Pattern is a compiled regex that reads one value from a text: Python's group 1
// when the expression has a capturing group, else the whole match. It is
// immutable and safe for concurrent use.
//
// Expressions are written for Python's re module (OrKa's dialect) and run on
// regexp2 (.NET syntax) after a light translation: (?P<name>…) and (?P=name)
// become (?<name>…) and \k<name>, and \Z (Python: end of text only) becomes \z.
// Group 1 is the first capturing parenthesis in the text of the expression, as in
// Python, even when it is named (.NET numbers named groups last). Without
// Multiline, "$" matches at the end of the text or before a final newline, in both
// dialects.
type Pattern struct {
	expr   string
	re     *regexp2.Regexp
	group  int // regexp2 group number of Python's group 1; 0 when there is none
	limits Limits
}

// Compile compiles a score pattern with Python's default flags (case-sensitive,
// "." does not match a newline) and the default [Limits].
func Compile(expr string) (*Pattern, error) {
	return CompileOptions(expr, PatternOptions{})
}

// CompileOptions compiles expr with the given flags and limits. The error is a
// *[PatternError] that names the expression and says why it does not compile.
func CompileOptions(expr string, o PatternOptions) (p *Pattern, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &PatternError{Pattern: expr, Reason: fmt.Sprintf("regex engine failure: %v", r)}
		}
	}()
	src, first := translatePython(expr)
	opts := regexp2.RegexOptions(regexp2.None)
	if o.IgnoreCase {
		opts |= regexp2.IgnoreCase
	}
	if o.DotAll {
		opts |= regexp2.Singleline
	}
	re, err := regexp2.Compile(src, opts)
	if err != nil {
		return nil, &PatternError{Pattern: expr, Reason: compileReason(err), Err: err}
	}
	p = &Pattern{expr: expr, re: re, limits: o.Limits.withDefaults()}
	re.MatchTimeout = p.limits.MatchTimeout
	if len(re.GetGroupNumbers()) > 1 {
		p.group = 1
		if first.named {
			if n := re.GroupNumberFromName(first.name); n > 0 {
				p.group = n
			}
		}
	}
	return p, nil
}

// compileReason is regexp2's explanation without its copy of the expression.
func compileReason(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error parsing regexp: ")
	if i := strings.LastIndex(msg, " in `"); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

// String returns the expression as written.
func (p *Pattern) String() string {
	if p == nil {
		return ""
	}
	return p.expr
}

// HasGroup reports whether the expression has a capturing group. Cognitive
// extraction ignores matches of patterns without one, as OrKa does.
func (p *Pattern) HasGroup() bool { return p != nil && p.group > 0 }

// Find returns the value of the first match in text: group 1, or the whole match
// when the expression has no group. Only the first MaxInput bytes are scanned. ok
// is false when nothing matches or group 1 did not take part in the match. The
// error is a *[MatchError] (a timeout wraps [ErrMatchTimeout]).
func (p *Pattern) Find(text string) (value string, ok bool, err error) {
	if p == nil {
		return "", false, nil
	}
	capped, _ := capText(text, p.limits.MaxInput)
	r := []rune(capped)
	start, end, ok, err := p.first(r)
	if err != nil || !ok {
		return "", false, err
	}
	return string(r[start:end]), true, nil
}

// first finds the first match in r and returns the rune span of its value.
func (p *Pattern) first(r []rune) (start, end int, ok bool, err error) {
	m, err := p.run(r, nil)
	if err != nil || m == nil {
		return 0, 0, false, err
	}
	start, end, ok = p.span(m)
	return start, end, ok, nil
}

// each calls fn with the rune span of group 1 of every match in r, in order, until
// fn returns false, the text has no more matches or maxMatchesPerScan is reached
// (reported as truncated). Matches without group 1 are skipped; a pattern without
// a group yields nothing.
func (p *Pattern) each(r []rune, fn func(start, end int) bool) (truncated bool, err error) {
	if p.group == 0 {
		return false, nil
	}
	m, err := p.run(r, nil)
	for n := 0; m != nil && err == nil; n++ {
		if n == maxMatchesPerScan {
			return true, nil
		}
		if s, e, ok := p.span(m); ok && !fn(s, e) {
			return false, nil
		}
		m, err = p.run(r, m)
	}
	return false, err
}

func (p *Pattern) span(m *regexp2.Match) (start, end int, ok bool) {
	if p.group == 0 {
		return m.Index, m.Index + m.Length, true
	}
	g := m.GroupByNumber(p.group)
	if g == nil || len(g.Captures) == 0 {
		return 0, 0, false
	}
	return g.Index, g.Index + g.Length, true
}

// run scans r for the first match, or for the match after prev. It turns
// regexp2's errors, which quote the whole input, into a short *MatchError, and a
// panic of the engine into an error.
func (p *Pattern) run(r []rune, prev *regexp2.Match) (m *regexp2.Match, err error) {
	defer func() {
		if x := recover(); x != nil {
			m, err = nil, p.matchError(r, fmt.Errorf("regex engine failure: %s", excerpt(fmt.Sprint(x))))
		}
	}()
	if prev == nil {
		m, err = p.re.FindRunesMatch(r)
	} else {
		m, err = p.re.FindNextMatch(prev)
	}
	if err != nil {
		cause := errors.New("regex engine failure")
		if strings.HasPrefix(err.Error(), "match timeout") {
			cause = fmt.Errorf("%w after %v", ErrMatchTimeout, p.limits.MatchTimeout)
		}
		return nil, p.matchError(r, cause)
	}
	return m, nil
}

func (p *Pattern) matchError(r []rune, cause error) *MatchError {
	n := len(r)
	if n > excerptLen {
		n = excerptLen
	}
	ex := string(r[:n])
	if n < len(r) {
		ex += "…"
	}
	size := 0
	for _, c := range r {
		size += utf8.RuneLen(c)
	}
	return &MatchError{Pattern: p.expr, Excerpt: ex, Len: size, Err: cause}
}

// capText cuts s to at most max bytes at a rune boundary.
func capText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// excerpt cuts s to excerptLen characters, marking the cut with "…".
func excerpt(s string) string {
	n := 0
	for i := range s {
		if n == excerptLen {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
