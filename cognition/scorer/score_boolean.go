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
	lister, _ := r.s.boolean.(metrics.CriteriaLister)
	for _, res := range r.results {
		m, ok := values.AsMap(res.Value)
		if !ok {
			continue
		}
		evals, hasEvals := m["boolean_evaluations"]
		if hasEvals {
			if em, ok := values.AsMap(evals); ok && metrics.IsValidBooleanStructure(em) {
				if lister != nil {
					if provided, total := coverage(em, lister.Criteria()); total == 0 || 2*provided < total {
						r.Warn(CodeScoreSkipped, "agent %q: boolean_evaluations too sparse (%d of %d criteria): skipped", res.ID, provided, total)
						continue
					}
				}
				if v, ok := r.s.boolean.Score(em); ok {
					return Score{Value: clamp01(v), Source: res.ID, Strategy: StrategyBoolean}, true
				}
				continue
			}
			if vs, ok := m["validation_score"]; ok {
				rd := validationScore(vs, r.s.scale)
				if rd == nil {
					r.Warn(CodeScoreSkipped, "agent %q: validation_score %q is not a number", res.ID, modeltext.Excerpt(values.Text(vs)))
					continue
				}
				sc := Score{Source: res.ID, Field: "validation_score", Strategy: StrategyValidationScore, Raw: modeltext.Excerpt(values.Text(vs))}
				if r.take(&sc, *rd) {
					return sc, true
				}
				continue
			}
		}
		resp, ok := m["response"]
		if !ok {
			continue
		}
		var em map[string]any
		if rm, ok := values.AsMap(resp); ok {
			em = modeltext.LowerKeys(rm)
			ok = metrics.IsValidBooleanStructure(em)
			if !ok {
				continue
			}
		} else {
			text, _ := modeltext.Cap(values.Text(resp), r.Limits.MaxInput)
			if em, ok = metrics.ParseBooleanEvaluations(text); !ok {
				continue
			}
		}
		if v, ok := r.s.boolean.Score(em); ok {
			return Score{Value: clamp01(v), Source: res.ID, Strategy: StrategyBoolean}, true
		}
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
