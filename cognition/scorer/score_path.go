package scorer

import (
	"strconv"
	"strings"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/values"
)

// nestedPath is the nested_path strategy: a dotted path ("scorer.response.score")
// walked from the iteration, whose keys are agent ids, as OrKa's
// extract_nested_path does. cogloop also walks the path inside each agent's
// result, in execution order ("result.AGREEMENT_SCORE" finds the field of a
// result), and steps into a text that holds a JSON object (or Python dict
// literal) and into a list by index ("items.0.score").
func (r *scoreRun) nestedPath(path string) (Score, bool) {
	parts := strings.Split(path, ".")
	if i := find(r.results, parts[0]); i >= 0 {
		if v, ok := r.walk(r.results[i].Value, parts[1:]); ok {
			field := strings.Join(parts[1:], ".")
			if sc, ok := r.pathScore(r.results[i].ID, field, path, StrategyNestedPath, v); ok {
				return sc, true
			}
		}
	}
	for _, res := range r.results {
		if v, ok := r.walk(res.Value, parts); ok {
			if sc, ok := r.pathScore(res.ID, path, path, StrategyNestedPath, v); ok {
				return sc, true
			}
		}
	}
	return Score{}, false
}

// jsonPath is the json strategy: a path ("$.safety_score", "scores.overall")
// into the JSON object an agent answered with, agent by agent (the listed
// agents, else all in execution order). The object is a mapping result itself,
// a mapping in its response/result/output/data, or the first-"{"-to-last-"}"
// span of one of those texts or of a bare-string result.
func (r *scoreRun) jsonPath(st strategy) (Score, bool) {
	parts := splitJSONPath(st.key)
	if len(st.agents) > 0 {
		for _, id := range st.agents {
			if i := find(r.results, id); i >= 0 {
				if sc, ok := r.jsonPathIn(i, st.key, parts); ok {
					return sc, true
				}
			}
		}
		return Score{}, false
	}
	for i := range r.results {
		if sc, ok := r.jsonPathIn(i, st.key, parts); ok {
			return sc, true
		}
	}
	return Score{}, false
}

// jsonPathIn reads the score at parts (path, as written) in result i: a bare
// text, one of its model-text fields, or the mapping itself.
func (r *scoreRun) jsonPathIn(i int, path string, parts []string) (Score, bool) {
	res := r.results[i]
	if s, ok := res.Value.(string); ok {
		if v, ok := r.walk(s, parts); ok {
			return r.pathScore(res.ID, "", path, StrategyJSON, v)
		}
		return Score{}, false
	}
	m, ok := values.AsMap(res.Value)
	if !ok {
		return Score{}, false
	}
	for _, f := range modeltext.Fields {
		if x, ok := m[f]; ok && x != nil {
			if v, ok := r.walk(x, parts); ok {
				if sc, ok := r.pathScore(res.ID, f, path, StrategyJSON, v); ok {
					return sc, true
				}
			}
		}
	}
	if v, ok := r.walk(m, parts); ok {
		return r.pathScore(res.ID, "", path, StrategyJSON, v)
	}
	return Score{}, false
}

// splitJSONPath turns "$.a.b", "$['a'].b" or "a.b" into its keys.
func splitJSONPath(p string) []string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, "$")
	p = strings.NewReplacer("['", ".", "']", "", `["`, ".", `"]`, "", "[", ".", "]", "").Replace(p)
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// pathScore reads the value a path led to as a score.
func (r *scoreRun) pathScore(id, field, path, strategy string, v any) (Score, bool) {
	rd := number(v, r.s.scale)
	if rd == nil {
		return Score{}, false
	}
	sc := Score{Source: id, Field: field, Strategy: strategy, Pattern: path, Raw: modeltext.Excerpt(values.Text(v))}
	taken := r.take(&sc, *rd) // before sc is read: take fills it
	return sc, taken
}

// walk follows keys from v: through mappings, lists (by index) and texts that
// hold a JSON object.
func (r *scoreRun) walk(v any, keys []string) (any, bool) {
	for _, k := range keys {
		if s, ok := v.(string); ok {
			s, _ = modeltext.Cap(s, r.Limits.MaxInput)
			obj, ok := modeltext.ParseObject(s)
			if !ok {
				return nil, false
			}
			v = obj
		}
		if m, ok := values.AsMap(v); ok {
			if v, ok = m[k]; !ok {
				return nil, false
			}
			continue
		}
		list, ok := v.([]any)
		i, err := strconv.Atoi(k)
		if !ok || err != nil || i < 0 || i >= len(list) {
			return nil, false
		}
		v = list[i]
	}
	return v, true
}
