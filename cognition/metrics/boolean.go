package metrics

import (
	"encoding/json"
	"math"
	"sort"
	"strings"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/pyvalue"
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
	f, ok := pyvalue.Finite(v)
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
	data, ok := modeltext.ParseObject(text)
	if !ok {
		return nil, false
	}
	data = modeltext.LowerKeys(data)
	if !IsValidBooleanStructure(data) {
		return nil, false
	}
	return data, true
}
