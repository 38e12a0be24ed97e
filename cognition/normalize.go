package cognition

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Normalize maps a score written without a scale to [0, 1], cogloop's one rule
// for every extraction path (it replaces OrKa's pattern-dependent normalisation):
//
//	v < 0          → 0
//	0 ≤ v ≤ 1      → v            (already a fraction)
//	1 < v ≤ 100    → v / 100      (a percentage: 85 → 0.85, and also 1.5 → 0.015, 7 → 0.07)
//	v > 100        → 1
//
// A score on another scale must say so in the text ("8/10", "7 out of 10",
// "85%"); [ParseScore] and the pattern strategies read that. NaN is 0.
func Normalize(v float64) float64 {
	switch {
	case math.IsNaN(v) || v <= 0: // also turns -0 into 0
		return 0
	case v <= 1:
		return v
	case v <= 100:
		return v / 100
	default:
		return 1
	}
}

// scale applies an explicit divisor ("/10", "out of 10", "%") when there is one,
// else [Normalize].
func scale(v, div float64) float64 {
	if div > 0 {
		return clamp01(v / div)
	}
	return Normalize(v)
}

func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v <= 0:
		return 0
	case v > 1:
		return 1
	default:
		return v
	}
}

// ParseScore reads a whole text as a score and normalises it: a number ("0.85",
// "85", "-1", "1e-1"), a percentage ("85%", "85 %"), or a number over an explicit
// denominator ("8/10", "9.5 / 10", "85/100", "7 out of 10"). Surrounding
// whitespace and a trailing full stop are ignored. An explicit denominator or
// percent sign wins; otherwise [Normalize] applies. ok is false for anything else,
// for a zero denominator and for NaN or infinite values.
func ParseScore(s string) (float64, bool) {
	s = strings.TrimRightFunc(strings.TrimFunc(s, isPySpace), func(r rune) bool { return r == '.' || isPySpace(r) })
	if s == "" {
		return 0, false
	}
	if v, ok := parseFloat(s); ok {
		return Normalize(v), true
	}
	r := []rune(s)
	i := 0
	neg := false
	if r[0] == '+' || r[0] == '-' {
		neg = r[0] == '-'
		i++
	}
	v, end, ok := numberAt(r, i)
	if !ok {
		return 0, false
	}
	div, end := suffixAt(r, end)
	if div <= 0 || skipSpace(r, end) != len(r) {
		return 0, false
	}
	if neg {
		v = -v
	}
	return scale(v, div), true
}

// captureScore turns the text captured by a pattern into a normalised score. text
// is the scanned text and end the rune index right after the capture: a "%",
// "/ D" or "out of D" there gives the scale, whatever the pattern, so
// SCORE:\s*([0-9.]+) reads "SCORE: 8/10" as 0.8. A capture that is not a number
// (after trimming whitespace and trailing dots) may itself be a fraction or a
// percentage ("8/10"); anything else is unparseable and the caller moves on to
// the next candidate, as OrKa does when float() fails.
func captureScore(capture string, text []rune, end int) (float64, bool) {
	c := strings.TrimFunc(capture, isPySpace)
	v, ok := parseFloat(c)
	if !ok {
		if t := strings.TrimRight(c, "."); t != c && t != "" {
			v, ok = parseFloat(t)
		}
	}
	if ok {
		div, _ := suffixAt(text, end)
		return scale(v, div), true
	}
	return ParseScore(c)
}

// parseFloat is strconv.ParseFloat without NaN and infinities.
func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// suffixAt looks right after a number (at rune i, after spaces or tabs) for a
// scale: "%" → 100, "/ D" or "out of D" → D (D > 0). It returns 0 when there is
// none, and the index after the suffix.
func suffixAt(r []rune, i int) (div float64, end int) {
	j := skipHSpace(r, i)
	if j >= len(r) {
		return 0, i
	}
	switch {
	case r[j] == '%':
		return 100, j + 1
	case r[j] == '/':
		if d, e, ok := numberAt(r, skipHSpace(r, j+1)); ok && d > 0 {
			return d, e
		}
	case hasFoldPrefix(r[j:], "out"):
		k := skipHSpace(r, j+3)
		if hasFoldPrefix(r[k:], "of") {
			if d, e, ok := numberAt(r, skipHSpace(r, k+2)); ok && d > 0 {
				return d, e
			}
		}
	}
	return 0, i
}

// numberAt reads an unsigned decimal number (digits with an optional fraction,
// or a fraction alone: "8", "9.5", ".5") at rune i. A dot not followed by a digit
// is not part of the number ("10." → 10).
func numberAt(r []rune, i int) (v float64, end int, ok bool) {
	j := i
	for j < len(r) && r[j] >= '0' && r[j] <= '9' {
		j++
	}
	if j < len(r)-1 && r[j] == '.' && r[j+1] >= '0' && r[j+1] <= '9' {
		j++
		for j < len(r) && r[j] >= '0' && r[j] <= '9' {
			j++
		}
	}
	if j == i {
		return 0, i, false
	}
	v, ok = parseFloat(string(r[i:j]))
	return v, j, ok
}

func skipHSpace(r []rune, i int) int {
	for i < len(r) && (r[i] == ' ' || r[i] == '\t' || r[i] == '\u00a0') {
		i++
	}
	return i
}

func skipSpace(r []rune, i int) int {
	for i < len(r) && isPySpace(r[i]) {
		i++
	}
	return i
}

// hasFoldPrefix reports whether r starts with the ASCII word w, ignoring case.
func hasFoldPrefix(r []rune, w string) bool {
	if len(r) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if unicode.ToLower(r[i]) != rune(w[i]) {
			return false
		}
	}
	return true
}

// isPySpace is Python's str.isspace for one character: Unicode white space plus
// the ASCII separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
