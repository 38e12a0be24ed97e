package cognition

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/ascii"
)

// Text is one text of an iteration prepared for regex scanning: cut to the
// input cap, with invalid UTF-8 replaced rune by rune (as a []rune conversion
// does, so byte and rune positions agree with what regexp2 sees). Its rune form,
// lower-cased form and position tables are made once, on first use, and shared by
// every pattern of the call.
type Text struct {
	agent string // agent id, for warnings
	field string // the mapping field the text comes from; "" for a bare-string result
	s     string // the text, cut to MaxInput
	size  int    // length of the whole text in bytes
	kept  int    // length of the cut text in bytes, before invalid UTF-8 was replaced
	cut   bool
	noted bool // the cut was reported
	ascii bool // s is ASCII: rune index == byte offset
	vt    int8 // s has a vertical tab: 0 not looked, 1 no, 2 yes

	r     []rune // s as runes, for regexp2
	lower string // s lower-cased rune by rune with unicode.ToLower
	lowOK bool   // lower is set
	lowA  bool   // lower is ASCII
	offs  []int32
	loffs []int32 // rune index → byte offset of s / lower, for non-ASCII texts

	pairs [2]*pairSet // byte pairs of s / lower, when the caller asked for them
}

// pairSet is a Bloom filter of the byte pairs of a text: a literal with a pair
// that is not in the set does not occur in the text. One pass over the text
// answers for every literal of an Extractor's patterns, which would otherwise
// each search the whole text.
type pairSet [64]uint64

func pairHash(a, b byte) uint32 { return (uint32(a)<<8 | uint32(b)) * 0x9E3779B1 >> 20 }

func newPairSet(s string) *pairSet {
	var ps pairSet
	for i := 0; i+1 < len(s); i++ {
		h := pairHash(s[i], s[i+1])
		ps[h>>6] |= 1 << (h & 63)
	}
	return &ps
}

// mayContain reports whether lit (two bytes or more) may occur in the text.
func (ps *pairSet) mayContain(lit string) bool {
	for i := 0; i+1 < len(lit); i++ {
		h := pairHash(lit[i], lit[i+1])
		if ps[h>>6]&(1<<(h&63)) == 0 {
			return false
		}
	}
	return true
}

// indexPairs makes the byte-pair set of searchable(fold).
func (t *Text) indexPairs(fold bool) {
	i := 0
	if fold {
		i = 1
	}
	if t.pairs[i] == nil {
		t.pairs[i] = newPairSet(t.searchable(fold))
	}
}

// absent reports whether the byte-pair set of searchable(fold), if made, rules
// lit out.
func (t *Text) absent(fold bool, lit string) bool {
	i := 0
	if fold {
		i = 1
	}
	return t.pairs[i] != nil && len(lit) >= 2 && !t.pairs[i].mayContain(lit)
}

// newText prepares s for scanning with the input cap max.
func newText(agent, field, s string, max int) *Text {
	capped, cut := modeltext.Cap(s, max)
	ascii := ascii.Is(capped)
	kept := len(capped)
	if !ascii && !utf8.ValidString(capped) {
		capped = string([]rune(capped))
	}
	return &Text{agent: agent, field: field, s: capped, size: len(s), kept: kept, cut: cut, ascii: ascii}
}

// label names the text in warnings: agent "scorer" response.
func (t *Text) label() string {
	if t.field == "" {
		return fmt.Sprintf("agent %q", t.agent)
	}
	return fmt.Sprintf("agent %q %s", t.agent, t.field)
}

// hasVT reports whether s has a vertical tab (\v), which .NET's \s matches
// and RE2's does not.
func (t *Text) hasVT() bool {
	if t.vt == 0 {
		t.vt = 1
		if strings.IndexByte(t.s, '\v') >= 0 {
			t.vt = 2
		}
	}
	return t.vt == 2
}

// Agent is the id of the agent the text comes from.
func (t *Text) Agent() string { return t.agent }

// Field is the mapping field the text comes from; "" for a bare-string result.
func (t *Text) Field() string { return t.field }

// Runes returns the (cut) text as runes: the positions [Scan.First] reports
// index it.
func (t *Text) Runes() []rune {
	if t.r == nil {
		if t.ascii {
			r := make([]rune, len(t.s))
			for i := range r {
				r[i] = rune(t.s[i])
			}
			t.r = r
		} else {
			t.r = []rune(t.s)
		}
	}
	return t.r
}

// searchable returns the text that literals are looked for in: the text, or
// its lower-cased form for a case-insensitive prefilter.
func (t *Text) searchable(fold bool) string {
	if !fold {
		return t.s
	}
	if !t.lowOK {
		t.lower, t.lowA = lowerText(t.s, t.ascii)
		t.lowOK = true
	}
	return t.lower
}

// runeIndex converts a byte offset of searchable(fold), on a rune boundary, to
// a rune index (the same in both forms: lower-casing maps rune to rune).
func (t *Text) runeIndex(fold bool, b int) int {
	offs := t.offsets(fold)
	if offs == nil {
		return b
	}
	return sort.Search(len(offs), func(i int) bool { return int(offs[i]) >= b })
}

// byteOffset converts a rune index to a byte offset of searchable(fold).
func (t *Text) byteOffset(fold bool, i int) int {
	offs := t.offsets(fold)
	if offs == nil {
		return i
	}
	return int(offs[i])
}

// offsets returns the rune → byte table of searchable(fold), nil when it is ASCII.
func (t *Text) offsets(fold bool) []int32 {
	s, table := t.s, &t.offs
	if fold {
		s, table = t.searchable(true), &t.loffs
		if t.lowA {
			return nil
		}
	} else if t.ascii {
		return nil
	}
	if *table == nil {
		offs := make([]int32, 0, len(s)+1)
		for i := range s {
			offs = append(offs, int32(i))
		}
		*table = append(offs, int32(len(s)))
	}
	return *table
}

// lowerText lower-cases valid UTF-8 s rune by rune with unicode.ToLower, as
// regexp2 does under IgnoreCase, and reports whether the result is ASCII.
func lowerText(s string, ascii bool) (string, bool) {
	if ascii {
		i := 0
		for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
			i++
		}
		if i == len(s) {
			return s, true
		}
		b := []byte(s)
		for ; i < len(b); i++ {
			if c := b[i]; 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b), true
	}
	b := make([]byte, 0, len(s)+8)
	lowA := true
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // unicode.ToLower's ASCII case, inline
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		r = unicode.ToLower(r)
		lowA = lowA && r < utf8.RuneSelf
		b = utf8.AppendRune(b, r)
		i += size
	}
	return string(b), lowA
}

// Scan is the per-call state of one Score or Extract call: the limits, the
// regex budget and the warnings. It is never shared between calls (nor between
// goroutines). The zero value scans with its own budget of Limits.Budget, which
// must then be set: callers set Limits to their compiled limits.
type Scan struct {
	Limits   Limits
	Budget   *Budget // the pass's shared budget; nil: the call's own, of Limits.Budget
	warnings []Warning
}

// Warn records a warning of the call.
func (sc *Scan) Warn(code, format string, args ...any) {
	sc.warnings = append(sc.warnings, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
}

// Warnings returns the warnings recorded so far.
func (sc *Scan) Warnings() []Warning { return sc.warnings }

// Text prepares s, the text of field of agent's result ("" for a bare-string
// result), for scanning: cut to Limits.MaxInput. Prepare a text once and scan
// it with every pattern.
func (sc *Scan) Text(agent, field, s string) *Text {
	return newText(agent, field, s, sc.Limits.MaxInput)
}

// note reports, once, that t was cut to the input cap.
func (sc *Scan) note(t *Text) {
	if t.cut && !t.noted {
		t.noted = true
		sc.Warn(CodeTextCut, "%s: text of %d bytes scanned only up to %d bytes", t.label(), t.size, t.kept)
	}
}

// errBudget stops a scan when the regex budget is spent; allowAt has already
// recorded the warning.
var errBudget = errors.New("regex budget spent")

// Budget is a regex time budget shared by several Score and Extract calls: the
// loop node gives all the score and lesson patterns of one pass one Budget. Its
// clock starts with the first run of the regex engine; it is checked before
// every run, and once it is spent every remaining scan is skipped, with one
// warning ([CodeRegexBudget]) in the call that found it spent. A Budget is not
// safe for concurrent use: the calls sharing it run one after the other.
type Budget struct {
	limit    time.Duration
	deadline time.Time
	spent    bool
	warned   bool
}

// NewBudget returns a budget of d; d ≤ 0 means [DefaultPassBudget].
func NewBudget(d time.Duration) *Budget {
	if d <= 0 {
		d = DefaultPassBudget
	}
	return &Budget{limit: d}
}

// Spent reports whether the budget ran out.
func (b *Budget) Spent() bool { return b != nil && b.spent }

// allowAt reports whether, at time now, the budget still allows running the
// regex engine; the first call that finds it spent returns a warning.
func (b *Budget) allowAt(now time.Time) (ok bool, warning string) {
	if b.deadline.IsZero() {
		b.deadline = now.Add(b.limit)
		return true, ""
	}
	if b.spent {
		return false, ""
	}
	if now.After(b.deadline) {
		b.spent = true
		if !b.warned {
			b.warned = true
			return false, fmt.Sprintf("regex budget of %v spent: remaining scans skipped", b.limit)
		}
		return false, ""
	}
	return true, ""
}

// allowAt reports whether, at time now, the call's regex budget still allows
// running the regex engine. A nil scan has no budget.
func (sc *Scan) allowAt(now time.Time) bool {
	if sc == nil {
		return true
	}
	if sc.Budget == nil {
		sc.Budget = &Budget{limit: sc.Limits.Budget}
	}
	ok, w := sc.Budget.allowAt(now)
	if w != "" {
		sc.Warn(CodeRegexBudget, "%s", w)
	}
	return ok
}

// spent reports whether the call's budget ran out.
func (sc *Scan) spent() bool { return sc.Budget.Spent() }

// First runs p on t and returns the rune span of the first match's value
// (group 1, or the whole match) in t.Runes(). A cut text, a timeout, an engine
// failure or a spent budget becomes a warning of the call, and a failed scan
// counts as no match.
func (sc *Scan) First(p *Pattern, t *Text) (start, end int, ok bool) {
	if sc.spent() {
		return 0, 0, false
	}
	sc.note(t)
	start, end, ok, err := p.first(t, sc)
	if err != nil {
		if err != errBudget {
			sc.matchWarn(t, err)
		}
		return 0, 0, false
	}
	return start, end, ok
}

func (sc *Scan) matchWarn(t *Text, err error) {
	code := CodeRegexFailure
	if errors.Is(err, ErrMatchTimeout) {
		code = CodeRegexTimeout
	}
	sc.Warn(code, "%s: %v", t.label(), err)
}

// each calls fn with every match span of p in t (see Pattern.each), stopping
// when the budget is spent.
func (sc *Scan) each(p *Pattern, t *Text, fn func(start, end int) bool) {
	if sc.spent() {
		return
	}
	sc.note(t)
	truncated, err := p.each(t, sc, fn)
	switch {
	case err == errBudget:
	case err != nil:
		sc.matchWarn(t, err)
	case truncated:
		sc.Warn(CodeTooMany, "%s: pattern %q: only the first %d matches read", t.label(), p.expr, maxMatchesPerScan)
	}
}
