package scorer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/embedding"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/values"
)

// Score is the judgement of one iteration.
type Score struct {
	Value    float64             // in [0, 1]; 0 when nothing scored
	Found    bool                // a strategy produced the value
	Source   string              // the agent id the value came from
	Field    string              // the field of the agent's result the text came from ("response"); "" for a bare result
	Strategy string              // how: a Strategy* constant; StrategyGuard with Found false when the guard rule applied
	Pattern  string              // the expression that matched (a regex), or the key or path read
	Raw      string              // the captured or raw text the value was read from, at most 80 characters
	Written  float64             // the number as written, before scaling
	Rescaled string              // set when the default rule moved a bare number: "8 read as 8 % = 0.08"
	Also     []string            // other agents whose output the same pattern matched (the pattern strategy): the score is ambiguous
	Warnings []cognition.Warning // timeouts, cut texts, rejected numbers, skipped evaluations; never the whole of a text
}

// Score extracts the iteration's score, as OrKa's extract_score does, first
// success wins:
//
//  1. boolean scoring, when the config has a [metrics.BooleanScorer];
//  2. high-priority agents (in list order) whose mapping result has a response:
//     every pattern of every pattern strategy, or a built-in list;
//  3. the strategies in declared order: direct_key, pattern (outer loop over
//     patterns, inner over agents in execution order; mapping results are read in
//     their string response, result, output, data fields), agent_key;
//  4. the guard: a high-priority agent is present but scored nothing → 0, not found;
//  5. the agreement fallback, only through [Scorer.ScoreContext] with an embedder;
//  6. nothing: 0, not found.
//
// A pattern's value is group 1, or the whole match when it has no group; a value
// that does not parse moves on to the next candidate. Every value is normalised
// by one rule ([ParseScore], [Normalize]): a "%", "/ D" or "out of D" right after
// the captured number in the scanned text gives the scale, whatever the pattern.
//
// Score never fails: regex timeouts and the like become Warnings. A nil Scorer
// scores nothing.
func (s *Scorer) Score(results []cognition.Result) Score {
	return s.ScoreContext(context.Background(), results, nil)
}

// ScoreContext is [Scorer.Score] with step 5: when the config enables
// agreement_fallback, emb is not nil and nothing else scored, the score is the
// mean pairwise cosine similarity of the agents' texts, embedded by emb with ctx.
// Without an embedder step 5 finds nothing.
func (s *Scorer) ScoreContext(ctx context.Context, results []cognition.Result, emb embedding.Embedder) Score {
	return s.ScoreWithin(ctx, results, emb, nil)
}

// ScoreWithin is [Scorer.ScoreContext] whose regex work counts against b, a
// budget shared with other calls of the same loop pass (nil: the call's own
// budget of Limits.Budget).
func (s *Scorer) ScoreWithin(ctx context.Context, results []cognition.Result, emb embedding.Embedder, b *cognition.Budget) Score {
	if s == nil {
		return Score{}
	}
	results = s.Only(cognition.Dedupe(results))
	if len(results) == 0 {
		return Score{}
	}
	r := scoreRun{s: s, results: results, Scan: cognition.Scan{Limits: s.limits, Budget: b}}
	sc, ok := r.extract()
	if !ok && sc.Strategy != StrategyGuard && s.agreement && emb != nil && len(r.results) >= 2 {
		sc, ok = r.agreement(ctx, emb)
	}
	if !ok {
		sc.Value = 0
	}
	sc.Found = ok
	sc.Warnings = r.Warnings()
	return sc
}

// scoreRun is the per-call state of one Score call.
type scoreRun struct {
	s       *Scorer
	results []cognition.Result
	cognition.Scan
	texts map[textKey]*cognition.Text
}

type textKey struct {
	agent int
	field string
}

func (r *scoreRun) extract() (Score, bool) {
	if r.s.boolean != nil {
		if sc, ok := r.booleanScore(); ok {
			return sc, true
		}
	}
	if sc, ok := r.highPriority(); ok {
		return sc, true
	}
	for _, st := range r.s.strategies {
		var (
			sc Score
			ok bool
		)
		switch st.kind {
		case StrategyDirectKey:
			sc, ok = r.directKey(st.key)
		case StrategyPattern:
			sc, ok = r.patterns(st.patterns)
		case StrategyAgentKey:
			sc, ok = r.agentKey(st)
		case StrategyNestedPath:
			sc, ok = r.nestedPath(st.key)
		case StrategyJSON:
			sc, ok = r.jsonPath(st)
		}
		if ok {
			sc.Strategy = st.kind
			return sc, true
		}
	}
	for _, id := range r.s.highPriority {
		if find(r.results, id) >= 0 {
			return Score{Source: id, Strategy: StrategyGuard}, false
		}
	}
	return Score{}, false
}

// text returns the prepared text of field of agent i (field "" is a bare-string
// result), preparing it once per call.
func (r *scoreRun) text(i int, field, s string) *cognition.Text {
	k := textKey{i, field}
	if t, ok := r.texts[k]; ok {
		return t
	}
	t := r.Scan.Text(r.results[i].ID, field, s)
	if r.texts == nil {
		r.texts = make(map[textKey]*cognition.Text, 4)
	}
	r.texts[k] = t
	return t
}

// Only keeps the results of the score_from agents, when the config names them:
// the results a Score call reads.
func (s *Scorer) Only(results []cognition.Result) []cognition.Result {
	if s == nil || s.from == nil {
		return results
	}
	out := make([]cognition.Result, 0, len(s.from))
	for _, res := range results {
		for _, id := range s.from {
			if res.ID == id {
				out = append(out, res)
				break
			}
		}
	}
	return out
}

// match searches t with p and reads the value as a score.
func (r *scoreRun) match(p *cognition.Pattern, t *cognition.Text) (Score, bool) {
	start, end, ok := r.First(p, t)
	if !ok {
		return Score{}, false
	}
	runes := t.Runes()
	capture := string(runes[start:end])
	rd := captureScore(runes, start, end, r.s.scale)
	if rd == nil {
		return Score{}, false
	}
	sc := Score{Source: t.Agent(), Field: t.Field(), Pattern: p.String(), Raw: modeltext.Excerpt(capture)}
	taken := r.take(&sc, *rd) // before sc is read: take fills it
	return sc, taken
}

// take puts rd into sc when it is a score; a negative number or one above the
// score_scale is a warning and no score.
func (r *scoreRun) take(sc *Score, rd reading) bool {
	if !rd.ok() {
		via := ""
		if sc.Pattern != "" {
			via = fmt.Sprintf(" (%s %q)", sc.readBy(), sc.Pattern)
		}
		r.Warn(rd.problem, "%s: %s%s", sc.From(), rd.describe(), via)
		return false
	}
	sc.Value, sc.Written = rd.value, rd.written
	if rd.rescaled {
		sc.Rescaled = rd.describe()
	}
	return true
}

// From names where the score was read: agent "scorer" response.
func (sc Score) From() string {
	if sc.Field == "" {
		return fmt.Sprintf("agent %q", sc.Source)
	}
	return fmt.Sprintf("agent %q %s", sc.Source, sc.Field)
}

func (sc Score) readBy() string {
	switch sc.Strategy {
	case StrategyDirectKey:
		return "key"
	case StrategyNestedPath, StrategyJSON:
		return "path"
	}
	return "pattern"
}

func (r *scoreRun) highPriority() (Score, bool) {
	for _, id := range r.s.highPriority {
		i := find(r.results, id)
		if i < 0 {
			continue
		}
		m, ok := values.AsMap(r.results[i].Value)
		if !ok {
			continue
		}
		resp, ok := m["response"]
		if !ok {
			continue
		}
		t := r.text(i, "response", values.Text(resp))
		for _, p := range r.s.hpPatterns {
			if sc, ok := r.match(p, t); ok {
				sc.Strategy = StrategyHighPriority
				return sc, true
			}
		}
	}
	return Score{}, false
}

func (r *scoreRun) patterns(ps []*cognition.Pattern) (Score, bool) {
	for _, p := range ps {
		for i, res := range r.results {
			if s, ok := res.Value.(string); ok {
				if sc, ok := r.match(p, r.text(i, "", s)); ok {
					sc.Also = r.alsoMatched(p, i)
					return sc, true
				}
				continue
			}
			m, ok := values.AsMap(res.Value)
			if !ok {
				continue
			}
			for _, f := range modeltext.Fields {
				s, ok := m[f].(string)
				if !ok {
					continue
				}
				if sc, ok := r.match(p, r.text(i, f, s)); ok {
					sc.Also = r.alsoMatched(p, i)
					return sc, true
				}
			}
		}
	}
	return Score{}, false
}

// alsoMatched lists the agents after the i-th whose output p also matches:
// with OrKa's rule (the first agent in order wins) their scores were not
// read, and a writer quoting "SCORE: 1.0" outranks the scorer.
func (r *scoreRun) alsoMatched(p *cognition.Pattern, i int) []string {
	var out []string
	for j := i + 1; j < len(r.results); j++ {
		if r.matches(p, j) {
			out = append(out, r.results[j].ID)
		}
	}
	return out
}

// matches reports whether p matches a text of the j-th result.
func (r *scoreRun) matches(p *cognition.Pattern, j int) bool {
	if s, ok := r.results[j].Value.(string); ok {
		_, _, found := r.First(p, r.text(j, "", s))
		return found
	}
	m, ok := values.AsMap(r.results[j].Value)
	if !ok {
		return false
	}
	for _, f := range modeltext.Fields {
		if s, ok := m[f].(string); ok {
			if _, _, found := r.First(p, r.text(j, f, s)); found {
				return true
			}
		}
	}
	return false
}

func (r *scoreRun) agentKey(st strategy) (Score, bool) {
	for _, id := range st.agents {
		i := find(r.results, id)
		if i < 0 {
			continue
		}
		var t *cognition.Text
		switch v := r.results[i].Value.(type) {
		case string:
			t = r.text(i, "", v)
		default:
			m, ok := values.AsMap(v)
			if !ok {
				continue
			}
			val, ok := m[st.key]
			if !ok {
				continue
			}
			t = r.text(i, st.key, values.Text(val))
		}
		for _, p := range r.s.akPatterns {
			if sc, ok := r.match(p, t); ok {
				return sc, true
			}
		}
	}
	return Score{}, false
}

// directKey reads a numeric value named key. OrKa looks only at a top-level key
// of the iteration, that is an agent whose whole result is a number or numeric
// string. cogloop also looks, agent by agent in execution order, at a field key
// of a mapping result, of a mapping in its response/result/output/data, or of a
// JSON object (or Python dict literal) in one of those texts or in a bare-string
// result, so a scorer replying {"score": 0.85} works with
// score_extraction_key: score.
func (r *scoreRun) directKey(key string) (Score, bool) {
	if i := find(r.results, key); i >= 0 {
		if rd := number(r.results[i].Value, r.s.scale); rd != nil {
			sc := Score{Source: key, Strategy: StrategyDirectKey, Pattern: key, Raw: modeltext.Excerpt(values.Text(r.results[i].Value))}
			if r.take(&sc, *rd) {
				return sc, true
			}
		}
	}
	for _, res := range r.results {
		if val, ok := r.fieldIn(res.Value, key); ok {
			if rd := number(val, r.s.scale); rd != nil {
				sc := Score{Source: res.ID, Field: key, Strategy: StrategyDirectKey, Pattern: key, Raw: modeltext.Excerpt(values.Text(val))}
				if r.take(&sc, *rd) {
					return sc, true
				}
			}
		}
	}
	return Score{}, false
}

// fieldIn finds key in a mapping result, in the mappings or JSON texts of its
// text fields, or in a JSON text.
func (r *scoreRun) fieldIn(v any, key string) (any, bool) {
	if s, ok := v.(string); ok {
		return r.jsonField(s, key)
	}
	m, ok := values.AsMap(v)
	if !ok {
		return nil, false
	}
	if val, ok := m[key]; ok {
		return val, true
	}
	for _, f := range modeltext.Fields {
		switch x := m[f].(type) {
		case nil:
		case string:
			if val, ok := r.jsonField(x, key); ok {
				return val, true
			}
		default:
			if mm, ok := values.AsMap(x); ok {
				if val, ok := mm[key]; ok {
					return val, true
				}
			}
		}
	}
	return nil, false
}

func (r *scoreRun) jsonField(s, key string) (any, bool) {
	if !strings.Contains(s, key) {
		return nil, false
	}
	s, _ = modeltext.Cap(s, r.Limits.MaxInput)
	obj, ok := modeltext.ParseObject(s)
	if !ok {
		return nil, false
	}
	val, ok := obj[key]
	return val, ok
}

// find returns the index of id in results, or -1.
func find(results []cognition.Result, id string) int {
	for i := range results {
		if results[i].ID == id {
			return i
		}
	}
	return -1
}

// number reads a numeric result value as a score under scale: Go numbers (not
// bool) as bare numbers, strings and json.Number as texts ([ParseScore]'s
// forms). nil when v is no number.
func number(v any, scale int) *reading {
	switch x := v.(type) {
	case string:
		return parseReading(x, scale)
	case json.Number:
		return parseReading(x.String(), scale)
	}
	f, ok := pyvalue.Finite(v)
	if !ok {
		return nil
	}
	r := bare(f, scale)
	return &r
}
