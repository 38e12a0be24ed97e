package metrics

import (
	"encoding/json"
	"strings"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/values"
)

// Secondary metric keys recorded in every past_loops entry, and their defaults.
const (
	MetricReasoningQuality = "REASONING_QUALITY"
	MetricConvergenceTrend = "CONVERGENCE_TREND"
	MetricAgreementScore   = "AGREEMENT_SCORE"

	DefaultReasoningQuality = 0.0
	DefaultConvergenceTrend = "STABLE"
)

// Metric finds a secondary metric, as OrKa's extract_secondary_metric: in the
// first mapping result (execution order) that has key as a field; else in its
// response, result, output, data: a mapping with key, a JSON object or Python dict
// literal with key, or the text `key: value` (quotes optional; the value runs to
// the next quote, comma, "$", "}" or line break, and is trimmed; OrKa's regex
// runs on over line breaks, so "KEY: 0.8\nNEXT: x" gave it "0.8\nNEXT:"). From
// text, the values of REASONING_QUALITY and AGREEMENT_SCORE that are digits and
// dots become float64. Bare-string results are not read. Only the first
// [cognition.DefaultMaxInput] bytes of a text are searched; no regex is involved.
func Metric(results []cognition.Result, key string) (any, bool) {
	if key == "" {
		return nil, false
	}
	for _, res := range cognition.Dedupe(results) {
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		if v, ok := m[key]; ok {
			return v, true
		}
		for _, f := range modeltext.Fields {
			nested, ok := m[f]
			if !ok {
				continue
			}
			if nm, ok := values.AsMap(nested); ok {
				if v, ok := nm[key]; ok {
					return v, true
				}
				continue
			}
			s, ok := nested.(string)
			if !ok {
				continue
			}
			s, _ = modeltext.Cap(s, cognition.DefaultMaxInput)
			if v, ok := literalField(s, key); ok {
				return v, true
			}
			if v, ok := textField(s, key); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// literalField reads key from s when the whole of s is a JSON object or a Python
// dict literal.
func literalField(s, key string) (any, bool) {
	t := modeltext.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal([]byte(t), &m) != nil {
		m = nil
		if json.Unmarshal([]byte(modeltext.LiteralToJSON(t)), &m) != nil {
			return nil, false
		}
	}
	v, ok := m[key]
	return v, ok
}

// textField is OrKa's regex ['"]?KEY['"]?\s*:\s*['"]?([^'",$}]+) written as a
// scan, with the value also ending at a line break.
func textField(s, key string) (any, bool) {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], key)
		if i < 0 {
			return nil, false
		}
		j := from + i + len(key)
		from = from + i + 1
		v := valueAfterKey(s, j)
		if v == "" {
			continue
		}
		if (key == MetricReasoningQuality || key == MetricAgreementScore) && digitsAndDots(v) {
			if f, ok := modeltext.ParseFloat(v); ok {
				return f, true
			}
		}
		return v, true
	}
	return nil, false
}

// valueAfterKey reads ['"]?\s*:\s*['"]?([^'",$}]+) from s[j:] (j just past
// the key), the value also ending at a line break; "" when there is none.
func valueAfterKey(s string, j int) string {
	j = skipQuote(s, j)
	j = skipPySpaceBytes(s, j)
	if j >= len(s) || s[j] != ':' {
		return ""
	}
	j = skipQuote(s, skipPySpaceBytes(s, j+1))
	k := j
	for k < len(s) && !strings.ContainsRune("'\",$}\n\r", rune(s[k])) {
		k++
	}
	return modeltext.TrimSpace(s[j:k])
}

// skipQuote steps over one quote at s[j], if there is one.
func skipQuote(s string, j int) int {
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	return j
}

func skipPySpaceBytes(s string, i int) int {
	for i < len(s) {
		r := rune(s[i])
		if r >= 0x80 || !modeltext.IsSpace(r) {
			return i
		}
		i++
	}
	return i
}

// digitsAndDots is Python's value.replace(".", "").isdigit() for ASCII digits.
func digitsAndDots(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			digit = true
		case s[i] != '.':
			return false
		}
	}
	return digit
}

// ReasoningQuality is the REASONING_QUALITY secondary metric as a number in its
// own scale, DefaultReasoningQuality (0.0) when absent or not numeric (OrKa
// would keep a non-numeric value as it is).
func ReasoningQuality(results []cognition.Result) float64 {
	v, ok := Metric(results, MetricReasoningQuality)
	if !ok {
		return DefaultReasoningQuality
	}
	if f, ok := pyvalue.Finite(v); ok {
		return f
	}
	return DefaultReasoningQuality
}

// ConvergenceTrend is the CONVERGENCE_TREND secondary metric as text (see
// [Metric]; non-string values in their text form), DefaultConvergenceTrend
// ("STABLE") when absent.
func ConvergenceTrend(results []cognition.Result) string {
	v, ok := Metric(results, MetricConvergenceTrend)
	if !ok {
		return DefaultConvergenceTrend
	}
	return values.Text(v)
}
