package scorer

import (
	"strings"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/values"
)

// routingKeys and routingPhrases mark results of routers and joins; with them
// present, empty boolean_evaluations do not switch boolean scoring off.
var (
	routingKeys    = [...]string{"join_results", "routing_decision", "routing", "proposed_path", "path", "join"}
	routingPhrases = [...]string{"Join Results", "Routing Decision", "proposed_path", "proposed path"}
)

// booleanScore is step 1 of OrKa's ladder (_try_boolean_scoring).
func (r *scoreRun) booleanScore() (Score, bool) {
	if r.emptyEvaluationsOnly() {
		r.Warn(CodeScoreSkipped, "boolean_evaluations present but empty: boolean scoring skipped")
		return Score{}, false
	}
	for _, res := range r.results {
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		if evals, has := m["boolean_evaluations"]; has {
			sc, ok, handled := r.fromEvaluations(res.ID, m, evals)
			if ok {
				return sc, true
			}
			if handled {
				continue
			}
		}
		if sc, ok := r.fromResponse(res.ID, m); ok {
			return sc, true
		}
	}
	return Score{}, false
}

// fromEvaluations scores a result's boolean_evaluations or, when they are not
// a valid structure, its validation_score. handled is false when it has
// neither, and the result's response is to be read.
func (r *scoreRun) fromEvaluations(id string, m map[string]any, evals any) (sc Score, ok, handled bool) {
	if em, ok := values.AsMap(evals); ok && metrics.IsValidBooleanStructure(em) {
		if lister, _ := r.s.boolean.(metrics.CriteriaLister); lister != nil {
			if provided, total := coverage(em, lister.Criteria()); total == 0 || 2*provided < total {
				r.Warn(CodeScoreSkipped, "agent %q: boolean_evaluations too sparse (%d of %d criteria): skipped", id, provided, total)
				return Score{}, false, true
			}
		}
		if v, ok := r.s.boolean.Score(em); ok {
			return Score{Value: clamp01(v), Source: id, Strategy: StrategyBoolean}, true, true
		}
		return Score{}, false, true
	}
	vs, has := m["validation_score"]
	if !has {
		return Score{}, false, false
	}
	rd := validationScore(vs, r.s.scale)
	if rd == nil {
		r.Warn(CodeScoreSkipped, "agent %q: validation_score %q is not a number", id, modeltext.Excerpt(values.Text(vs)))
		return Score{}, false, true
	}
	sc = Score{Source: id, Field: "validation_score", Strategy: StrategyValidationScore, Raw: modeltext.Excerpt(values.Text(vs))}
	if r.take(&sc, *rd) {
		return sc, true, true
	}
	return Score{}, false, true
}

// fromResponse scores the boolean evaluations of a result's response: a
// mapping, or text that parses as one.
func (r *scoreRun) fromResponse(id string, m map[string]any) (Score, bool) {
	resp, ok := m["response"]
	if !ok {
		return Score{}, false
	}
	var em map[string]any
	if rm, ok := values.AsMap(resp); ok {
		if em = modeltext.LowerKeys(rm); !metrics.IsValidBooleanStructure(em) {
			return Score{}, false
		}
	} else {
		text, _ := modeltext.Cap(values.Text(resp), r.Limits.MaxInput)
		if em, ok = metrics.ParseBooleanEvaluations(text); !ok {
			return Score{}, false
		}
	}
	if v, ok := r.s.boolean.Score(em); ok {
		return Score{Value: clamp01(v), Source: id, Strategy: StrategyBoolean}, true
	}
	return Score{}, false
}

// emptyEvaluationsOnly: some result has boolean_evaluations, none of them has a
// non-empty criterion mapping, and nothing looks like routing or join output.
func (r *scoreRun) emptyEvaluationsOnly() bool {
	present, entries, routing := false, false, false
	for _, res := range r.results {
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		if evals, ok := m["boolean_evaluations"]; ok {
			present = true
			if em, ok := values.AsMap(evals); ok {
				for _, c := range em {
					if cm, ok := values.AsMap(c); ok && len(cm) > 0 {
						entries = true
						break
					}
				}
			}
		}
		if !routing {
			routing = looksLikeRouting(m)
		}
	}
	return present && !entries && !routing
}

func looksLikeRouting(m map[string]any) bool {
	for _, k := range routingKeys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	if s, ok := m["response"].(string); ok {
		for _, p := range routingPhrases {
			if strings.Contains(s, p) {
				return true
			}
		}
	}
	return false
}

// coverage counts how many of criteria ("dimension.criterion") evals provides.
func coverage(evals map[string]any, criteria []string) (provided, total int) {
	for _, c := range criteria {
		dim, crit, _ := strings.Cut(c, ".")
		if d, ok := values.AsMap(evals[dim]); ok {
			if _, ok := d[crit]; ok {
				provided++
			}
		}
	}
	return provided, len(criteria)
}

// validationScore reads a validator's validation_score (Python float()): a
// number or a numeric string, read under scale; nil when it is no number.
func validationScore(v any, scale int) *reading {
	if s, ok := v.(string); ok {
		f, ok := modeltext.ParseFloat(modeltext.TrimSpace(s))
		if !ok {
			return nil
		}
		r := bare(f, scale)
		return &r
	}
	return number(v, scale)
}
