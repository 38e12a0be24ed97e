package scorer

import (
	"fmt"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// ScoreTolerance is how far above 1 (after scaling) a number may be and still
// be read as the score 1.0: "1.0000001" is 1, not a percentage. Model output
// and float arithmetic produce such values; no scale is meant by them.
const ScoreTolerance = 1e-6

// Scale values of [ScoreConfig].Scale: how a bare number, one written without
// "%", "/ D" or "out of D", is read.
const (
	ScaleDefault  = 0   // [0,1] stays, (1,100] is a percentage, above 100 is 1 (reported as rescaled)
	ScaleFraction = 1   // a fraction of 1: 0.8 is 0.8
	ScaleTen      = 10  // a mark out of 10: 8 is 0.8
	ScaleHundred  = 100 // a percentage: 85 is 0.85
)

// Codes of the warnings ([cognition.Warning].Code) a [Score] carries besides
// the regex engine's (cognition.CodeRegexBudget and the like): why a number or
// a value was not taken as a score, or why the agreement fallback failed.
const (
	CodeNegativeScore   = "negative_score"     // a number below zero
	CodeScoreOutOfRange = "score_out_of_range" // a bare number above its score_scale
	CodeNotFinite       = "score_not_finite"   // a number too large for a float (1e309): not a score
	CodeScoreSkipped    = "score_skipped"      // a value was found but could not be used (sparse or empty boolean_evaluations, a validation_score that is no number, …)
	CodeAgreement       = "agreement"          // the agreement fallback failed
)

// reading is a number read as a score.
type reading struct {
	value    float64 // in [0, 1]
	written  float64 // the number as written, with its sign
	div      float64 // the explicit denominator ("%" is 100); 0 for a bare number
	rescaled bool    // the default rule moved a bare number (a percentage, or clamped), or an explicit value was clamped
	problem  string  // CodeNegativeScore or CodeScoreOutOfRange: not a score
}

// ok reports whether r is a score.
func (r reading) ok() bool { return r.problem == "" }

// describe says how the number was read, for warnings: "8 read as 8 % = 0.08".
func (r reading) describe() string {
	w := strconv.FormatFloat(r.written, 'g', -1, 64)
	switch {
	case r.problem == CodeNegativeScore:
		return fmt.Sprintf("%s is negative: not a score", w)
	case r.problem == CodeScoreOutOfRange:
		return fmt.Sprintf("%s is above the score_scale: not a score", w)
	case r.problem == CodeNotFinite:
		return "the number is not finite (it overflows a float): not a score"
	case r.div == 0 && r.written > 100:
		return fmt.Sprintf("%s is above 100: read as 1", w)
	case r.div == 0:
		return fmt.Sprintf("%s read as %s %% = %s", w, w, strconv.FormatFloat(r.value, 'g', -1, 64))
	default:
		return fmt.Sprintf("%s / %s is above 1: read as 1", w, strconv.FormatFloat(r.div, 'g', -1, 64))
	}
}

// bare reads v, a number written without a scale, under scale (a Scale* value).
func bare(v float64, scale int) reading {
	r := reading{written: v}
	if v < 0 {
		r.problem = CodeNegativeScore
		return r
	}
	if scale > 0 {
		x := v / float64(scale)
		if x > 1+ScoreTolerance {
			r.problem = CodeScoreOutOfRange
			return r
		}
		r.value = math.Min(x, 1)
		return r
	}
	switch {
	case v <= 1+ScoreTolerance:
		r.value = math.Min(v, 1)
	case v <= 100:
		r.value, r.rescaled = v/100, true
	default:
		r.value, r.rescaled = 1, true
	}
	return r
}

// explicit reads v over the denominator div ("8/10", "85%").
func explicit(v, div float64) reading {
	r := reading{written: v, div: div}
	if v < 0 {
		r.problem = CodeNegativeScore
		return r
	}
	x := v / div
	switch {
	case x <= 1+ScoreTolerance:
		r.value = math.Min(x, 1)
	default:
		r.value, r.rescaled = 1, true
	}
	return r
}

// Normalize maps a score written without a scale to [0, 1], cogloop's default
// rule for every extraction path (it replaces OrKa's pattern-dependent
// normalisation):
//
//	v ≤ 0              → 0            (a negative number is no score at all for the [Scorer])
//	0 ≤ v ≤ 1 + 1e-6   → min(v, 1)    (already a fraction; [ScoreTolerance] absorbs 1.0000001)
//	1 + 1e-6 < v ≤ 100 → v / 100      (a percentage: 85 → 0.85, and also 1.5 → 0.015, 7 → 0.07)
//	v > 100            → 1
//
// A score on another scale must say so in the text ("8/10", "7 out of 10",
// "85%") or in the loop's score_scale; [ParseScore] and the pattern strategies
// read that. NaN is 0.
func Normalize(v float64) float64 {
	if math.IsNaN(v) || v <= 0 { // also turns -0 into 0
		return 0
	}
	return bare(v, ScaleDefault).value
}

// ParseScore reads a whole text as a score under the default rule: a number
// ("0.85", "85", "+0.5", "1e-9"), a percentage ("85%", "85 %"), or a number over
// an explicit denominator ("8/10", "9.5 / 10", "85/100", "7 out of 10").
// Surrounding whitespace and a trailing full stop are ignored. An explicit
// denominator or percent sign wins; otherwise [Normalize] applies. ok is false
// for anything else, for a negative number, for a zero denominator and for NaN
// or infinite values.
func ParseScore(s string) (float64, bool) {
	r := parseReading(s, ScaleDefault)
	if r == nil || !r.ok() {
		return 0, false
	}
	return r.value, true
}

// parseReading reads a whole text as a score under scale; nil when it is no number.
func parseReading(s string, scale int) *reading {
	s = strings.TrimRightFunc(modeltext.TrimSpace(s), func(r rune) bool { return r == '.' || modeltext.IsSpace(r) })
	if s == "" {
		return nil
	}
	if v, ok := modeltext.ParseFloat(s); ok {
		r := bare(v, scale)
		return &r
	}
	r := []rune(s)
	i := 0
	neg := false
	if isSign(r[0]) {
		neg = r[0] != '+'
		i++
	}
	v, end, ok := numberAt(r, i)
	if !ok {
		return nil
	}
	div, end := suffixAt(r, end)
	if div <= 0 || skipSpace(r, end) != len(r) {
		return nil
	}
	if neg {
		v = -v
	}
	out := explicit(v, div)
	return &out
}

// captureScore reads the text a pattern captured, text[start:end], as a score.
//
//   - The number may go on after the capture with an exponent: a pattern
//     capturing "1" of "SCORE: 1e-9" reads 1e-9.
//   - A minus sign right before the capture (and not after a letter or digit:
//     "3-5" is a range) makes it negative: "SCORE: -0.5" is not a score, whatever
//     the pattern.
//   - A "%", "/ D" or "out of D" right after the number gives the scale, so
//     SCORE:\s*([0-9.]+) reads "SCORE: 8/10" as 0.8.
//   - A capture that is not a number (after trimming whitespace and trailing
//     dots) may itself be a fraction or a percentage ("8/10").
//
// nil means the capture is no number; the caller moves on to the next
// candidate, as OrKa does when float() fails.
func captureScore(text []rune, start, end, scale int) *reading {
	capture := string(text[start:end])
	c := modeltext.TrimSpace(capture)
	v, ok := modeltext.ParseFloat(c)
	if !ok {
		if t := strings.TrimRight(c, "."); t != c && t != "" {
			v, ok = modeltext.ParseFloat(t)
		}
	}
	if !ok {
		return parseReading(c, scale)
	}
	if c == capture && !strings.ContainsAny(c, "eE") && isDigit(text[end-1]) {
		x, e, ok := exponentAt(text, end, c)
		switch {
		case ok:
			v, end = x, e
		case e > end: // "SCORE: 1e309" captured as "1": the number is infinite
			return &reading{written: math.Inf(1), problem: CodeNotFinite}
		}
	}
	if c == capture && !isSign(rune(c[0])) && signBefore(text, start) {
		v = -v
	}
	if div, _ := suffixAt(text, end); div > 0 {
		r := explicit(v, div)
		return &r
	}
	r := bare(v, scale)
	return &r
}

// exponentAt reads an exponent ("e-9", "E+3") at rune i that continues the
// number num; it returns the whole number and the index after it. An exponent
// that makes the number infinite returns ok false with the index after it.
func exponentAt(r []rune, i int, num string) (float64, int, bool) {
	if i >= len(r) || (r[i] != 'e' && r[i] != 'E') {
		return 0, i, false
	}
	j := i + 1
	if j < len(r) && (r[j] == '+' || r[j] == '-') {
		j++
	}
	k := j
	for k < len(r) && isDigit(r[k]) {
		k++
	}
	if k == j {
		return 0, i, false
	}
	v, ok := modeltext.ParseFloat(num + string(r[i:k]))
	if !ok {
		return 0, k, false
	}
	return v, k, true
}

// signBefore reports whether a minus sign stands right before rune i and is a
// sign, not a hyphen or a range dash (it does not follow a letter or digit).
func signBefore(r []rune, i int) bool {
	if i == 0 || (r[i-1] != '-' && r[i-1] != '\u2212') {
		return false
	}
	return i == 1 || !(unicode.IsLetter(r[i-2]) || unicode.IsDigit(r[i-2]))
}

func isSign(r rune) bool { return r == '+' || r == '-' || r == '\u2212' }

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

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
	for j < len(r) && isDigit(r[j]) {
		j++
	}
	if j < len(r)-1 && r[j] == '.' && isDigit(r[j+1]) {
		j++
		for j < len(r) && isDigit(r[j]) {
			j++
		}
	}
	if j == i {
		return 0, i, false
	}
	v, ok = modeltext.ParseFloat(string(r[i:j]))
	return v, j, ok
}

func skipHSpace(r []rune, i int) int {
	for i < len(r) && (r[i] == ' ' || r[i] == '\t' || r[i] == '\u00a0') {
		i++
	}
	return i
}

func skipSpace(r []rune, i int) int {
	for i < len(r) && modeltext.IsSpace(r[i]) {
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
