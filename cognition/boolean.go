package cognition

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/values"
)

// BooleanScorer turns boolean evaluations ({dimension: {criterion: true|false}})
// into a weighted score: OrKa's BooleanScoreCalculator. The presets come with the
// loop_validator work; [Weights] is the plain weighted sum they are built on. ok
// false means the evaluations could not be scored and the next agent is tried.
type BooleanScorer interface {
	Score(evals map[string]any) (score float64, ok bool)
}

// CriteriaLister is an optional ability of a [BooleanScorer]: the
// "dimension.criterion" keys it weighs. When a scorer has it, an agent whose
// boolean_evaluations provide fewer than half of those criteria is skipped
// (OrKa's 50 % coverage rule).
type CriteriaLister interface {
	Criteria() []string
}

// Weights is a [BooleanScorer] and [CriteriaLister] over "dimension.criterion"
// keys: the score is the sum of the weights of the criteria that passed (true, or
// one of the strings true/yes/1/pass/passed in any case), rounded to 4 decimals.
// Anything else — false, missing, numbers — fails. Weights are used as given (no
// renormalisation).
type Weights map[string]float64

var (
	_ BooleanScorer  = Weights(nil)
	_ CriteriaLister = Weights(nil)
)

// Score implements [BooleanScorer]. It is not ok when there are no weights.
func (w Weights) Score(evals map[string]any) (float64, bool) {
	if len(w) == 0 {
		return 0, false
	}
	sum := 0.0
	for key, weight := range w {
		dim, crit, _ := strings.Cut(key, ".")
		if d, ok := values.AsMap(evals[dim]); ok && Passed(d[crit]) {
			sum += weight
		}
	}
	return math.Round(sum*1e4) / 1e4, true
}

// Criteria implements [CriteriaLister]; the keys are sorted.
func (w Weights) Criteria() []string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Passed is the boolean calculators' notion of a passed criterion: the bool true,
// or the text true, yes, 1, pass or passed in any case and with surrounding
// space. Everything else (false, missing, numbers) fails.
func Passed(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "1", "pass", "passed":
			return true
		}
	}
	return false
}

// booleanLike is is_valid_boolean_structure's notion of a value that carries a
// verdict: any bool, a string true/yes/1/pass/passed, or a non-zero number.
func booleanLike(v any) bool {
	switch x := v.(type) {
	case bool:
		return true
	case string:
		return Passed(x)
	case json.Number:
		f, err := x.Float64()
		return err == nil && f != 0
	}
	f, ok := rawNumber(v)
	return ok && f != 0
}

// canonicalDimensions are the graphscout dimensions whose presence makes
// [IsValidBooleanStructure] demand two dimensions.
var canonicalDimensions = [...]string{"completeness", "efficiency", "safety", "coherence"}

// IsValidBooleanStructure is OrKa's is_valid_boolean_structure: v is a mapping
// whose values include nested mappings holding at least one boolean-like value
// (a bool, a string true/yes/1/pass/passed, a non-zero number). If any of
// completeness, efficiency, safety, coherence is a key, two such nested
// mappings are needed; otherwise two, or one with at least two entries.
func IsValidBooleanStructure(v any) bool {
	data, ok := values.AsMap(v)
	if !ok {
		return false
	}
	dims, lastLen := 0, 0
	for _, val := range data {
		d, ok := values.AsMap(val)
		if !ok {
			continue
		}
		for _, c := range d {
			if booleanLike(c) {
				dims++
				lastLen = len(d)
				break
			}
		}
	}
	for _, c := range canonicalDimensions {
		if _, ok := data[c]; ok {
			return dims >= 2
		}
	}
	return dims >= 2 || (dims == 1 && lastLen >= 2)
}

// ParseBooleanEvaluations finds boolean evaluations in a model's text, as OrKa
// does in a response: the span from the first "{" to the last "}" is read as JSON,
// or else as a Python literal (True/False/None and single quotes converted); the
// top-level keys are lower-cased (when two keys differ only in case, the
// alphabetically last spelling wins). The result is returned only when it passes
// [IsValidBooleanStructure].
func ParseBooleanEvaluations(text string) (map[string]any, bool) {
	data, ok := parseObject(text)
	if !ok {
		return nil, false
	}
	data = lowerKeys(data)
	if !IsValidBooleanStructure(data) {
		return nil, false
	}
	return data, true
}

// parseObject reads the first-"{"-to-last-"}" span of text as a JSON object,
// falling back to a Python dict literal.
func parseObject(text string) (map[string]any, bool) {
	i := strings.IndexByte(text, '{')
	j := strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return nil, false
	}
	blob := text[i : j+1]
	var m map[string]any
	if json.Unmarshal([]byte(blob), &m) == nil && m != nil {
		return m, true
	}
	m = nil
	if json.Unmarshal([]byte(pyLiteralToJSON(blob)), &m) == nil && m != nil {
		return m, true
	}
	return nil, false
}

func lowerKeys(m map[string]any) map[string]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		out[strings.ToLower(k)] = m[k]
	}
	return out
}

// pyLiteralToJSON applies OrKa's conversion of a Python literal to JSON: the
// words True, False, None become true, false, null and every single quote becomes
// a double quote.
func pyLiteralToJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prevWord := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !prevWord {
			if w, repl, ok := pyWordAt(s[i:]); ok {
				b.WriteString(repl)
				i += len(w)
				prevWord = true
				continue
			}
		}
		if r == '\'' {
			b.WriteByte('"')
		} else {
			b.WriteString(s[i : i+n])
		}
		prevWord = isWordRune(r)
		i += n
	}
	return b.String()
}

var pyWords = [...][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}}

// pyWordAt matches True, False or None at the start of s, followed by a word
// boundary.
func pyWordAt(s string) (word, repl string, ok bool) {
	for _, w := range pyWords {
		if strings.HasPrefix(s, w[0]) {
			next, _ := utf8.DecodeRuneInString(s[len(w[0]):])
			if len(s) == len(w[0]) || !isWordRune(next) {
				return w[0], w[1], true
			}
		}
	}
	return "", "", false
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
