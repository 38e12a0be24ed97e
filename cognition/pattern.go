package cognition

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/dlclark/regexp2"
)

// Defaults for [Limits].
const (
	// DefaultMatchTimeout bounds one regex scan of one text.
	DefaultMatchTimeout = 100 * time.Millisecond
	// DefaultMaxInput is how many bytes of a text are scanned; the rest is ignored
	// with a warning.
	DefaultMaxInput = 64 << 10
	// maxMaxInput is the largest MaxInput: rune offsets in a scanned text are
	// int32.
	maxMaxInput = 1 << 30
	// DefaultBudget bounds all the regex work of one Score or Extract call
	// that is given no [Budget].
	DefaultBudget = time.Second
	// DefaultPassBudget bounds all the regex work of one loop pass: its score
	// and lesson patterns together (the loop's regex_budget).
	DefaultPassBudget = 500 * time.Millisecond
)

// maxMatchesPerScan caps the matches one pattern may yield on one text.
const maxMatchesPerScan = 10000

// Limits bound the regex work done on model output. Zero (or negative) fields
// take the defaults.
type Limits struct {
	// MatchTimeout bounds one search of one text by one pattern for its next
	// match (regexp2's per-regex MatchTimeout; the package-level default is never
	// used). The engine checks its clock every 100 ms, so a search may overrun by
	// that much. A search made of anchored attempts (see [Pattern]) stops when
	// they together exceed MatchTimeout; its last attempt may overrun it by up to
	// MatchTimeout.
	MatchTimeout time.Duration
	// MaxInput is the number of bytes of each text that is scanned, cut back to a
	// rune boundary. Longer texts are scanned up to the cap and reported in a warning.
	MaxInput int
	// Budget bounds the total regex time of one Score or Extract call; it is
	// checked before every run of the regex engine, and when it is spent the
	// remaining scans are skipped with a warning. Its clock starts with the
	// call's first run of the engine.
	Budget time.Duration
}

// WithDefaults fills the zero or negative fields of l with the defaults and
// caps MaxInput at 1 GiB.
func (l Limits) WithDefaults() Limits {
	if l.MatchTimeout <= 0 {
		l.MatchTimeout = DefaultMatchTimeout
	}
	if l.MaxInput <= 0 {
		l.MaxInput = DefaultMaxInput
	}
	l.MaxInput = min(l.MaxInput, maxMaxInput)
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
//
// # Speed
//
// Compiling also reads the expression, in the subset of the syntax that it
// can read exactly as regexp2 does (anything else runs as written):
//
//   - Literals that every match must start with or contain: "SCORE:\s*([0-9.]+)"
//     needs "SCORE:"; "(?:lacks?|needs?)\s+(.+?)" under IgnoreCase needs "lack"
//     or "need" in the text lower-cased as regexp2 lower-cases it. A text
//     without them never reaches the regex engine; when every match starts with
//     one, the expression is run anchored (\G) only where one occurs instead of
//     being tried at every position. A scan finds the leftmost match at or after
//     a position and no match starts elsewhere, so the matches are the same.
//
//   - OrKa's line idiom "(.+?)(?:\n|$)" at the very end of the expression runs
//     as the equivalent "(.[^\n]*)(?:\n|$)", which regexp2 does without
//     backtracking at each character. When the idiom is group 1 and the
//     expression has one branch, the part before it (the head) runs alone and
//     the rest of the line is found by a search for "\n" ([tailSplit]); a head
//     made of words, optional letters and runs of white space or punctuation
//     (OrKa's lesson patterns) runs without regexp2 at all ([headProg]), on the
//     text prepared once for all patterns, without a []rune copy.
//
//   - An expression without anchored attempts (a whole-text scan) that Go's
//     regexp runs with the same matches is also compiled for it, and runs
//     there on the texts where the two engines agree (see re2.go): linear
//     time, no []rune copy, no allocation per match.
//
// All are checked against the expression as written by differential tests
// and a fuzz target.
type Pattern struct {
	expr     string
	re       *regexp2.Regexp
	anchored *regexp2.Regexp // \G(?:expr): one attempt at the start position; nil without a prefix prefilter
	re2      *re2Pattern     // the same expression on Go's regexp, for the texts it fits; nil: regexp2 only
	tail     *tailSplit      // the expression as a head and a line idiom; nil: run whole
	pre      prefilter
	hasPre   bool
	group    int // regexp2 group number of Python's group 1; 0 when there is none
	opts     PatternOptions
	limits   Limits
	nested   nestedQuantifier // NestedQuantifier(expr), for Lint
	reOpts   regexp2.RegexOptions
	clamps   *sync.Map // clampKey → *regexp2.Regexp: the expression with a shorter (tier > 0) or longer (tier < 0, [Pattern.stretched]) MatchTimeout; shared by copies
}

// nestedQuantifier is what [NestedQuantifier] found in a pattern.
type nestedQuantifier struct {
	at    int
	group string
	found bool
}

// maxAnchoredAttempts bounds the failed anchored attempts of one search; after
// them the search goes on with one plain scan (many literal occurrences that do
// not match: the engine's own scanning is cheaper then).
const maxAnchoredAttempts = 64

// Compile compiles a score pattern with Python's default flags (case-sensitive,
// "." does not match a newline) and the default [Limits].
func Compile(expr string) (*Pattern, error) {
	return CompileOptions(expr, PatternOptions{})
}

// CompileOptions compiles expr with the given flags and limits. The error is a
// *[PatternError] that names the expression and says why it does not compile.
func CompileOptions(expr string, o PatternOptions) (*Pattern, error) {
	return cachedCompile(expr, o)
}

// compile is CompileOptions; without analysis the pattern has no prefilter and
// runs as written (the tests compare both).
func compile(expr string, o PatternOptions, analysis bool) (p *Pattern, err error) {
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
	o.Limits = o.Limits.WithDefaults()
	p = &Pattern{expr: expr, re: re, opts: o, limits: o.Limits, reOpts: opts, clamps: new(sync.Map)}
	p.nested.at, p.nested.group, p.nested.found = NestedQuantifier(expr)
	re.MatchTimeout = p.limits.MatchTimeout
	if len(re.GetGroupNumbers()) > 1 {
		p.group = 1
		if first.named {
			if n := re.GroupNumberFromName(first.name); n > 0 {
				p.group = n
			}
		}
	}
	if !analysis {
		return p, nil
	}
	re2src := src
	a := analyze(src, o.IgnoreCase)
	if a.fast != "" {
		// An equivalent expression with the same groups; if it does not compile
		// (it always should), the expression as written runs.
		if fast, err := regexp2.Compile(a.fast, opts); err == nil && sameGroups(fast, re) {
			fast.MatchTimeout = p.limits.MatchTimeout
			p.re, src = fast, a.fast
		}
	}
	if a.hasPre {
		p.pre, p.hasPre = a.pre, true
		if a.pre.prefix {
			// The wrapper adds no group, so group numbers stay. If it does not
			// compile (it always should), the prefilter still gates the scan.
			if an, err := regexp2.Compile(`\G(?:`+src+`)`, opts); err == nil && sameGroups(an, re) {
				an.MatchTimeout = p.limits.MatchTimeout
				p.anchored = an
			} else {
				p.pre.prefix = false
			}
		}
	}
	p.tail = compileTail(a.tail, opts, p)
	if p.anchored == nil {
		// regexp2's anchored attempts at literal occurrences beat RE2's
		// (whose backtracker clears a table the size of the rest of the text
		// per attempt); a whole-text scan is cheaper on RE2.
		p.re2 = compileRE2(re2src, o)
	}
	return p, nil
}

// sameGroups reports whether a and b number and name their groups alike.
func sameGroups(a, b *regexp2.Regexp) bool {
	an, bn := a.GetGroupNumbers(), b.GetGroupNumbers()
	if len(an) != len(bn) {
		return false
	}
	for i := range an {
		if an[i] != bn[i] || a.GroupNameFromNumber(an[i]) != b.GroupNameFromNumber(bn[i]) {
			return false
		}
	}
	return true
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

// AsWritten returns the expression compiled as written, with the same options:
// no prefilter, no rewrite, no RE2 form. It finds the same matches as p, only
// slower: it is the reference the differential tests compare p with.
func (p *Pattern) AsWritten() *Pattern {
	if p == nil {
		return nil
	}
	q, err := compile(p.expr, p.opts, false)
	if err != nil {
		return p // p compiled with these options, so q does too
	}
	return q
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
	t := newText("", "", text, p.limits.MaxInput)
	start, end, ok, err := p.first(t, nil)
	if err != nil || !ok {
		return "", false, err
	}
	return string(t.Runes()[start:end]), true, nil
}

// first finds the first match in t and returns the rune span of its value. sc,
// when not nil, is the call whose budget every engine run is checked against.
func (p *Pattern) first(t *Text, sc *Scan) (start, end int, ok bool, err error) {
	if p.re2.fits(t) {
		return p.firstRE2(t, sc)
	}
	var lc litCursor
	h, found, err := p.find(t, 0, &lc, sc)
	if err != nil || !found {
		return 0, 0, false, err
	}
	return h.gs, h.ge, h.gok, nil
}

// each calls fn with the rune span of group 1 of every match in t, in order,
// until fn returns false, the text has no more matches or maxMatchesPerScan is
// reached (reported as truncated). Matches without group 1 are skipped; a pattern
// without a group yields nothing. The matches are those of regexp2's
// FindNextMatch chain.
func (p *Pattern) each(t *Text, sc *Scan, fn func(start, end int) bool) (truncated bool, err error) {
	if p.group == 0 {
		return false, nil
	}
	if p.re2.fits(t) {
		return p.eachRE2(t, sc, fn)
	}
	var lc litCursor
	for n, pos := 0, 0; ; n++ {
		h, found, err := p.find(t, pos, &lc, sc)
		if err != nil || !found {
			return false, err
		}
		if n == maxMatchesPerScan {
			return true, nil
		}
		if h.gok && !fn(h.gs, h.ge) {
			return false, nil
		}
		// FindNextMatch: go on at the end of the match, one further after an
		// empty one.
		pos = h.index + h.length
		if h.length == 0 {
			if pos >= t.runeLen() {
				return false, nil
			}
			pos++
		}
	}
}

// hit is a match: the rune span of the whole match and of its value.
type hit struct {
	index, length int  // the whole match
	gs, ge        int  // the value: group 1, or the whole match without a group
	gok           bool // the value took part in the match
}

// find returns the first match of p in t that starts at rune pos or later;
// found is false when there is none. With a prefilter it runs the engine only where a match can start.
//
// Every run of the engine is bounded by MatchTimeout and checked against the
// call's budget first; a search made of several anchored attempts also stops
// with ErrMatchTimeout once its attempts together have taken MatchTimeout (the
// last attempt may overrun it by up to MatchTimeout, as one scan may overrun
// the budget).
func (p *Pattern) find(t *Text, pos int, lc *litCursor, sc *Scan) (h hit, found bool, err error) {
	c := pos
	if p.hasPre {
		if c = lc.next(&p.pre, t, pos); c < 0 {
			return hit{}, false, nil
		}
	}
	now := sc.now()
	if !sc.allowAt(now) {
		return hit{}, false, errBudget
	}
	if !p.hasPre || !p.pre.prefix {
		return p.scanFrom(t, pos, sc)
	}
	deadline := now.Add(p.limits.MatchTimeout)
	for failed := 0; ; failed++ {
		if failed > 0 {
			if c = lc.next(&p.pre, t, pos); c < 0 {
				return hit{}, false, nil
			}
			now = sc.now()
			if now.After(deadline) {
				return hit{}, false, p.matchError(t, p.timeout())
			}
			if !sc.allowAt(now) {
				return hit{}, false, errBudget
			}
		}
		if failed == maxAnchoredAttempts {
			return p.scanFrom(t, c, sc)
		}
		if h, found, err := p.attempt(t, c, sc); found || err != nil {
			return h, found, err
		}
		pos = c + 1
	}
}

// scanFrom returns the first match at rune pos or later, found by regexp2's
// own scan: with a [tailSplit], of the head first.
func (p *Pattern) scanFrom(t *Text, pos int, sc *Scan) (hit, bool, error) {
	if p.tail != nil {
		if h, found, done, err := p.viaHead(p.tail.head, t, pos, sc); done {
			return h, found, err
		}
	}
	return p.hitOf(p.run(p.re, t, pos, sc))
}

// viaHead runs re, a [tailSplit]'s head, from rune pos and completes its match
// with the line idiom. done is false when the idiom cannot complete it: then
// the whole expression must run.
func (p *Pattern) viaHead(re *regexp2.Regexp, t *Text, pos int, sc *Scan) (h hit, found, done bool, err error) {
	m, err := p.run(re, t, pos, sc)
	if err != nil || m == nil {
		return hit{}, false, true, err
	}
	if h, ok := p.tail.complete(t, m.Index, m.Index+m.Length); ok {
		return h, true, true, nil
	}
	return hit{}, false, false, nil
}

// attempt is one anchored attempt at rune c: with a [tailSplit], of the head
// first.
func (p *Pattern) attempt(t *Text, c int, sc *Scan) (hit, bool, error) {
	if p.tail != nil && p.tail.prog != nil {
		fold := p.tail.prog.fold
		end, ok := p.tail.prog.match(t.searchable(fold), t.byteOffset(fold, c))
		if !ok {
			return hit{}, false, nil // no way of HEAD matches at c: nor does the expression
		}
		if h, ok := p.tail.complete(t, c, t.runeIndex(fold, end)); ok {
			return h, true, nil
		}
	} else if p.tail != nil {
		if h, found, done, err := p.viaHead(p.tail.anchored, t, c, sc); done {
			return h, found, err
		}
	}
	return p.hitOf(p.run(p.anchored, t, c, sc))
}

func (p *Pattern) timeout() error {
	return fmt.Errorf("%w after %v", ErrMatchTimeout, p.limits.MatchTimeout)
}

// hitOf turns the result of a run of regexp2 into a hit.
func (p *Pattern) hitOf(m *regexp2.Match, err error) (hit, bool, error) {
	if err != nil || m == nil {
		return hit{}, false, err
	}
	h := hit{index: m.Index, length: m.Length}
	h.gs, h.ge, h.gok = p.span(m)
	return h, true, nil
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

// run scans t with re from rune pos for the first match. It turns regexp2's
// errors, which quote the whole input, into a short *MatchError, and a panic of
// the engine into an error. Its MatchTimeout is clamped to what is left of
// the call's regex budget ([Pattern.within]).
//
// On a CPU budget a run that regexp2 stopped (its MatchTimeout is wall time)
// runs again when the machine's load stopped it ([Pattern.rerun]).
func (p *Pattern) run(re *regexp2.Regexp, t *Text, pos int, sc *Scan) (m *regexp2.Match, err error) {
	start := sc.now()
	r := p.within(re, sc.left(start))
	m, err = p.runOnce(r, t, pos)
	if err != nil && sc.cpuClock() && errors.Is(err, ErrMatchTimeout) {
		return p.rerun(r, t, pos, sc, start, err)
	}
	return m, err
}

// maxReruns bounds the runs again of one match that load stopped: the wall
// timeout doubles each time, to 2^maxReruns times MatchTimeout.
const maxReruns = 6

// rerun decides a run of r that timed out on a CPU budget by the CPU time
// the run used (the thread's, measured from start), not by the wall time
// regexp2 counts: a run that used r's MatchTimeout in CPU time timed out, as
// it does on an idle machine (regexp2 stops no run earlier than that); one
// that used less was stopped because its thread waited for a CPU, and runs
// again with a longer wall timeout (doubled each time), within the budget,
// so that how busy the machine is does not change what is found. A run
// again may use more CPU time than MatchTimeout only if the load ends while
// it runs. After maxReruns runs stopped by load the error says so (the
// scan's warning names it): only a machine that gave the thread less than
// 1/2^maxReruns of a CPU gets there.
func (p *Pattern) rerun(r *regexp2.Regexp, t *Text, pos int, sc *Scan, start time.Time, err error) (*regexp2.Match, error) {
	for k := 1; ; k++ {
		now := sc.now()
		used := now.Sub(start)
		switch {
		case used >= r.MatchTimeout:
			return nil, err
		case k > maxReruns:
			return nil, p.matchError(t, fmt.Errorf("%w: the machine's load stopped it %d times (its last run had %v of CPU time in a wall timeout of %v)",
				ErrMatchTimeout, maxReruns+1, used.Round(time.Microsecond), r.MatchTimeout<<maxReruns))
		case !sc.allowAt(now):
			return nil, errBudget
		}
		start = now
		m, e := p.runOnce(p.stretched(r, k), t, pos)
		if e == nil || !errors.Is(e, ErrMatchTimeout) {
			return m, e
		}
		err = e
	}
}

// stretched is r compiled again with a wall timeout of 2^k times its own,
// once per pattern, on first need.
func (p *Pattern) stretched(r *regexp2.Regexp, k int) *regexp2.Regexp {
	return p.retimed(r, -k, r.MatchTimeout<<k)
}

// retimed is re compiled again with MatchTimeout d, kept in p.clamps under
// tier (shared by the pattern's copies; made once without them).
func (p *Pattern) retimed(re *regexp2.Regexp, tier int, d time.Duration) *regexp2.Regexp {
	key := clampKey{re, tier}
	if p.clamps != nil {
		if v, ok := p.clamps.Load(key); ok {
			return v.(*regexp2.Regexp)
		}
	}
	c, err := regexp2.Compile(re.String(), p.reOpts)
	if err != nil {
		return re // it compiled once; it always should again
	}
	c.MatchTimeout = d
	if p.clamps == nil {
		return c
	}
	v, _ := p.clamps.LoadOrStore(key, c)
	return v.(*regexp2.Regexp)
}

// runOnce is one run of re on t from rune pos.
func (p *Pattern) runOnce(re *regexp2.Regexp, t *Text, pos int) (m *regexp2.Match, err error) {
	defer func() {
		if x := recover(); x != nil {
			m, err = nil, p.matchError(t, fmt.Errorf("regex engine failure: %s", modeltext.Excerpt(fmt.Sprint(x))))
		}
	}()
	m, err = findRunes(re, t.Runes(), pos)
	if err != nil {
		cause := errors.New("regex engine failure")
		if strings.HasPrefix(err.Error(), "match timeout") {
			cause = fmt.Errorf("%w after %v", ErrMatchTimeout, re.MatchTimeout)
		}
		return nil, p.matchError(t, cause)
	}
	return m, nil
}

// findRunes runs the engine (tests replace it to stand for a run that a
// loaded machine stopped).
var findRunes = (*regexp2.Regexp).FindRunesMatchStartingAt

// maxClampTier bounds the shorter timeouts a pattern keeps: MatchTimeout/2
// down to MatchTimeout/64.
const maxClampTier = 6

type clampKey struct {
	re   *regexp2.Regexp
	tier int
}

// within returns re, or re compiled again with the longest of
// MatchTimeout/2, /4, … /64 that fits left, the time left of the pass's regex
// budget: the scan running when the budget runs out stops about then, not a
// whole MatchTimeout later (at most MatchTimeout/64 later). The shorter forms
// are compiled once per pattern, on first need.
func (p *Pattern) within(re *regexp2.Regexp, left time.Duration) *regexp2.Regexp {
	if left >= re.MatchTimeout || p.clamps == nil {
		return re
	}
	tier, d := 1, re.MatchTimeout/2
	for tier < maxClampTier && d > left {
		tier, d = tier+1, d/2
	}
	return p.retimed(re, tier, max(d, time.Millisecond))
}

// litCursor finds, for one search of one pattern in one text, the next place
// where a literal of the prefilter occurs, remembering each literal's next
// occurrence so the text is searched once per literal.
type litCursor struct {
	occ  [maxLitSet]int  // byte offset of the literal's next occurrence at or after from[i]; -1: none
	from [maxLitSet]int  // the offset occ[i] was searched from
	set  [maxLitSet]bool // literal i was searched for
	k, b int             // with a litIndex: the first occurrence at or after byte b
}

// next returns the rune index of the first occurrence of a literal of pf in t
// at or after rune pos, or -1.
func (lc *litCursor) next(pf *prefilter, t *Text, pos int) int {
	text := t.searchable(pf.fold)
	b := t.byteOffset(pf.fold, pos)
	if at, ok := lc.nextIndexed(pf, t, b); ok {
		if at < 0 {
			return -1
		}
		return t.runeIndex(pf.fold, at)
	}
	best := -1
	for i, lit := range pf.lits {
		if !lc.set[i] || lc.from[i] > b || (lc.occ[i] >= 0 && lc.occ[i] < b) {
			lc.set[i], lc.from[i], lc.occ[i] = true, b, -1
			if j := indexRare(text[b:], lit, pf.rare[i]); j >= 0 {
				lc.occ[i] = b + j
			}
		}
		if o := lc.occ[i]; o >= 0 && (best < 0 || o < best) {
			best = o
		}
	}
	if best < 0 {
		return -1
	}
	return t.runeIndex(pf.fold, best)
}

func (p *Pattern) matchError(t *Text, cause error) *MatchError {
	return &MatchError{Pattern: p.expr, Excerpt: modeltext.Excerpt(t.s), Len: len(t.s), Err: cause}
}
