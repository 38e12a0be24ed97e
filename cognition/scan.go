package cognition

import (
	"fmt"
	"time"
)

// scanText is one text of an iteration prepared for regex scanning: cut to the
// input cap and converted to runes once, on first use.
type scanText struct {
	label string // where the text comes from, for warnings: agent "scorer" response
	s     string // the text, cut to MaxInput
	size  int    // length of the whole text in bytes
	cut   bool
	r     []rune
	noted bool // the cut was reported
}

// scan holds the per-call state of a Score or Extract call: the regex budget and
// the warnings. It is never shared between calls.
type scan struct {
	limits   Limits
	deadline time.Time
	spent    bool
	warnings []string
}

func (sc *scan) warn(format string, args ...any) {
	sc.warnings = append(sc.warnings, fmt.Sprintf(format, args...))
}

func (sc *scan) text(label, s string) *scanText {
	capped, cut := capText(s, sc.limits.MaxInput)
	return &scanText{label: label, s: capped, size: len(s), cut: cut}
}

func (sc *scan) runes(t *scanText) []rune {
	if t.cut && !t.noted {
		t.noted = true
		sc.warn("%s: text of %d bytes scanned only up to %d bytes", t.label, t.size, len(t.s))
	}
	if t.r == nil {
		t.r = []rune(t.s)
	}
	return t.r
}

// allow reports whether the call's regex budget still allows a scan.
func (sc *scan) allow() bool {
	now := time.Now()
	if sc.deadline.IsZero() {
		sc.deadline = now.Add(sc.limits.Budget)
		return true
	}
	if sc.spent {
		return false
	}
	if now.After(sc.deadline) {
		sc.spent = true
		sc.warn("regex budget of %v spent: remaining scans skipped", sc.limits.Budget)
		return false
	}
	return true
}

// first runs p on t and returns the rune span of the first match's value. A
// failed scan becomes a warning and counts as no match.
func (sc *scan) first(p *Pattern, t *scanText) (start, end int, ok bool) {
	if !sc.allow() {
		return 0, 0, false
	}
	start, end, ok, err := p.first(sc.runes(t))
	if err != nil {
		sc.warn("%s: %v", t.label, err)
		return 0, 0, false
	}
	return start, end, ok
}

// each calls fn with every match span of p in t (see Pattern.each), stopping
// when the budget is spent.
func (sc *scan) each(p *Pattern, t *scanText, fn func(start, end int) bool) {
	if !sc.allow() {
		return
	}
	stopped := false
	truncated, err := p.each(sc.runes(t), func(s, e int) bool {
		if !sc.allow() {
			stopped = true
			return false
		}
		return fn(s, e)
	})
	switch {
	case err != nil:
		sc.warn("%s: %v", t.label, err)
	case truncated && !stopped:
		sc.warn("%s: pattern %q: only the first %d matches read", t.label, p.expr, maxMatchesPerScan)
	}
}
