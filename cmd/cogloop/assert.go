package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/metrics"
)

// assertion is one check of a run: its kind (the dataset's "type") and what
// it compares against. Parsed once per dataset; safe for concurrent checks.
type assertion struct {
	Kind  string `json:"type"`
	Value any    `json:"value,omitempty"`
	// text is Value as text (contains, equals, regex, similar, llm-rubric, stop_reason).
	text string
	// limit is Value as a number (passes, final_score, cost, tokens, latency in seconds).
	limit     float64
	threshold float64
	re        *cognition.Pattern
	schema    *jsonschema.Schema
	judge     *judgeSpec
}

// assertResult is one assertion's outcome, as --out writes it.
type assertResult struct {
	Kind   string `json:"type"`
	Value  any    `json:"value,omitempty"`
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
	// Tokens and Cost are an llm-rubric judge's calls.
	Tokens int     `json:"judge_tokens,omitempty"`
	Cost   float64 `json:"judge_cost,omitempty"`
}

// assertKinds are the assertion types, in the order help lists them.
var assertKinds = []string{"contains", "icontains", "not-contains", "equals", "regex", "is-json", "json-schema",
	"similar", "llm-rubric", "passes", "final_score", "stop_reason", "cost", "tokens", "latency"}

// assertKeys are the keys an assertion object may have.
var assertKeys = []string{"type", "value", "threshold", "judge", "model", "provider", "model_url"}

// maxAssertText bounds the answer an assertion looks at.
const maxAssertText = 1 << 20

// parseAssertion reads one assertion object; where names it in errors
// ("assert[2]"). Errors speak of keys and JSON kinds, never Go types.
func parseAssertion(raw json.RawMessage, where string) (*assertion, error) {
	m, err := assertionObject(raw, where)
	if err != nil {
		return nil, err
	}
	a := &assertion{}
	if err := json.Unmarshal(m["type"], &a.Kind); err != nil || a.Kind == "" {
		return nil, fmt.Errorf(`%s: "type" must be one of %s`, where, strings.Join(assertKinds, ", "))
	}
	if !slices.Contains(assertKinds, a.Kind) {
		msg := fmt.Sprintf("%s: unknown assertion type %q", where, a.Kind)
		if near := load.Closest(a.Kind, assertKinds); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return nil, fmt.Errorf("%s (known: %s)", msg, strings.Join(assertKinds, ", "))
	}
	val, hasVal := m["value"]
	if hasVal {
		_ = json.Unmarshal(val, &a.Value) // it parsed as part of the object
	}
	if err := a.readValue(m, where); err != nil {
		return nil, err
	}
	for _, k := range []string{"threshold", "judge", "model", "provider", "model_url"} {
		if _, ok := m[k]; ok && !(k == "threshold" && a.Kind == "similar") && a.Kind != "llm-rubric" {
			return nil, fmt.Errorf("%s.%s: only for %s", where, k, map[bool]string{true: "similar", false: "llm-rubric"}[k == "threshold"])
		}
	}
	return a, nil
}

// assertionObject reads raw as an assertion's object of known keys.
func assertionObject(raw json.RawMessage, where string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf(`%s: an assertion is an object such as {"type": "contains", "value": "..."}, not %s`, where, jsonKind(raw))
	}
	for k := range m {
		if !slices.Contains(assertKeys, k) {
			return nil, fmt.Errorf("%s: unknown key %q%s (an assertion has: %s)", where, k, didYouMean(k, assertKeys), strings.Join(assertKeys, ", "))
		}
	}
	return m, nil
}

// readValue reads the value of assertion object m (and its threshold or
// judge) as a's kind wants it.
func (a *assertion) readValue(m map[string]json.RawMessage, where string) error {
	val, hasVal := m["value"]
	field := where + `.value`
	switch a.Kind {
	case "contains", "icontains", "not-contains", "equals", "stop_reason":
		return a.needText(val, hasVal, field)
	case "regex":
		if err := a.needText(val, hasVal, field); err != nil {
			return err
		}
		var err error
		if a.re, err = cognition.Compile(a.text); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	case "is-json":
		if hasVal {
			return fmt.Errorf("%s: is-json takes no value", field)
		}
	case "json-schema":
		if !hasVal || jsonKind(val) != "an object" {
			return fmt.Errorf("%s: json-schema needs a JSON Schema object, got %s", field, jsonKind(val))
		}
		var err error
		if a.schema, err = compileSchema(val); err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
	case "similar":
		return a.readSimilar(m, where)
	case "llm-rubric":
		if err := a.needText(val, hasVal, field); err != nil {
			return err
		}
		var err error
		a.judge, err = parseJudge(m, where)
		return err
	case "passes", "tokens", "final_score", "cost", "latency":
		return a.readLimit(val, hasVal, field)
	}
	return nil
}

// readLimit reads the value (hasVal: given) of an assertion on the run's
// facts: the most (or, for final_score, the least) allowed.
func (a *assertion) readLimit(val json.RawMessage, hasVal bool, field string) error {
	switch a.Kind {
	case "passes", "tokens":
		if err := a.needNumber(val, hasVal, field, "a whole number (the most allowed)"); err != nil {
			return err
		}
		if a.limit != math.Trunc(a.limit) {
			return fmt.Errorf("%s: %s needs a whole number, got %v", field, a.Kind, a.limit)
		}
	case "final_score":
		return a.needNumber(val, hasVal, field, "a number (the least allowed score)")
	case "cost":
		return a.needNumber(val, hasVal, field, "a number of dollars (the most allowed)")
	case "latency":
		return parseLatency(a, val, hasVal, field)
	}
	return nil
}

// needText reads val (hasVal: given) into a.text; field names it in errors.
func (a *assertion) needText(val json.RawMessage, hasVal bool, field string) error {
	if !hasVal || json.Unmarshal(val, &a.text) != nil {
		return fmt.Errorf("%s: %s needs a text value, got %s", field, a.Kind, jsonKind(val))
	}
	return nil
}

// needNumber reads val (hasVal: given) into a.limit, a number ≥ 0; what
// says the number wanted.
func (a *assertion) needNumber(val json.RawMessage, hasVal bool, field, what string) error {
	if !hasVal || json.Unmarshal(val, &a.limit) != nil || math.IsNaN(a.limit) || a.limit < 0 {
		return fmt.Errorf("%s: %s needs %s, got %s", field, a.Kind, what, jsonKind(val))
	}
	return nil
}

// readSimilar reads a similar assertion's text and threshold (default 0.8).
func (a *assertion) readSimilar(m map[string]json.RawMessage, where string) error {
	val, hasVal := m["value"]
	a.threshold = 0.8
	if err := a.needText(val, hasVal, where+`.value`); err != nil {
		return err
	}
	if t, ok := m["threshold"]; ok {
		if json.Unmarshal(t, &a.threshold) != nil || a.threshold < 0 || a.threshold > 1 {
			return fmt.Errorf("%s.threshold: a number between 0 and 1, got %s", where, jsonKind(t))
		}
	}
	return nil
}

func parseLatency(a *assertion, val json.RawMessage, hasVal bool, field string) error {
	var s string
	if hasVal && json.Unmarshal(val, &s) == nil {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s: latency needs a duration such as \"2s\" or \"500ms\", got %q", field, s)
		}
		a.limit = d.Seconds()
		return nil
	}
	return fmt.Errorf("%s: latency needs a duration such as \"2s\", got %s", field, jsonKind(val))
}

func compileSchema(val json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(val))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("dataset-schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("dataset-schema.json")
}

// didYouMean is "; did you mean X?" for the known name closest to name, or "".
func didYouMean(name string, known []string) string {
	if near := load.Closest(name, known); near != "" {
		return fmt.Sprintf("; did you mean %q?", near)
	}
	return ""
}

// jsonKind names the JSON kind of raw in the user's terms.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "text"
	case 't', 'f':
		return "true/false"
	case 'n':
		return "null"
	}
	return "a number"
}

// runFacts is what assertions look at besides the answer.
type runFacts struct {
	answer     string
	passes     int
	finalScore *float64
	stopReason string
	tokens     int
	cost       float64
	latency    time.Duration
}

// check runs a (not llm-rubric) assertion against a run; the reason says
// what was wanted and what was found.
func (a *assertion) check(f runFacts) assertResult {
	r := assertResult{Kind: a.Kind, Value: a.Value, Pass: true}
	ans := f.answer
	if len(ans) > maxAssertText {
		ans = ans[:maxAssertText]
	}
	reason := a.answerReason(ans)
	if reason == "" {
		reason = a.factReason(f)
	}
	if reason != "" {
		r.Pass, r.Reason = false, reason
	}
	return r
}

// answerReason is why the answer ans fails a's check of its text ("": it
// passes, or a checks no text).
func (a *assertion) answerReason(ans string) string {
	switch a.Kind {
	case "contains":
		if !strings.Contains(ans, a.text) {
			return fmt.Sprintf("answer does not contain %q: %s", a.text, quoteShort(ans))
		}
	case "icontains":
		if !strings.Contains(strings.ToLower(ans), strings.ToLower(a.text)) {
			return fmt.Sprintf("answer does not contain %q (any case): %s", a.text, quoteShort(ans))
		}
	case "not-contains":
		if strings.Contains(ans, a.text) {
			return fmt.Sprintf("answer contains %q: %s", a.text, quoteShort(ans))
		}
	case "equals":
		if strings.TrimSpace(ans) != strings.TrimSpace(a.text) {
			return fmt.Sprintf("answer is not %q: %s", a.text, quoteShort(ans))
		}
	case "regex":
		_, ok, err := a.re.Find(ans)
		if err != nil {
			return fmt.Sprintf("regex %q: %v", a.text, err)
		}
		if !ok {
			return fmt.Sprintf("answer does not match /%s/: %s", a.text, quoteShort(ans))
		}
	case "is-json", "json-schema":
		return a.jsonReason(ans)
	case "similar":
		if s := metrics.Similarity(ans, a.text, a.threshold); s < a.threshold {
			return fmt.Sprintf("answer's similarity to %q is below %.2f: %s", a.text, a.threshold, quoteShort(ans))
		}
	}
	return ""
}

// jsonReason is why ans is not JSON, or not of a's schema ("": it is).
func (a *assertion) jsonReason(ans string) string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(ans)), &v); err != nil {
		return fmt.Sprintf("answer is not JSON (%v): %s", plainJSONError(err), quoteShort(ans))
	}
	if a.schema != nil {
		if err := a.schema.Validate(v); err != nil {
			return fmt.Sprintf("answer does not match the schema: %s", firstLines(err.Error(), 4))
		}
	}
	return ""
}

// factReason is why the run's facts fail a's check of them ("": they pass,
// or a checks the answer).
func (a *assertion) factReason(f runFacts) string {
	switch a.Kind {
	case "passes":
		if float64(f.passes) > a.limit {
			return fmt.Sprintf("the run took %d passes, more than %v", f.passes, a.limit)
		}
	case "final_score":
		if f.finalScore == nil {
			return "the run has no loop, so no final score"
		}
		if *f.finalScore < a.limit {
			return fmt.Sprintf("final score %.3f is below %v", *f.finalScore, a.limit)
		}
	case "stop_reason":
		if f.stopReason != a.text {
			return fmt.Sprintf("the loop stopped by %q, not %q", orNone(f.stopReason), a.text)
		}
	case "cost":
		if f.cost > a.limit {
			return fmt.Sprintf("the run cost $%.4f, more than $%v", f.cost, a.limit)
		}
	case "tokens":
		if float64(f.tokens) > a.limit {
			return fmt.Sprintf("the run used %d tokens, more than %v", f.tokens, a.limit)
		}
	case "latency":
		if f.latency.Seconds() > a.limit {
			return fmt.Sprintf("the run took %s, more than %s", f.latency.Round(time.Millisecond), time.Duration(a.limit*float64(time.Second)))
		}
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "(no loop)"
	}
	return s
}

// quoteShort quotes s cut to 120 runes, for reasons.
func quoteShort(s string) string {
	const n = 120
	r := []rune(s)
	if len(r) > n {
		return fmt.Sprintf("%q…", string(r[:n]))
	}
	return fmt.Sprintf("%q", s)
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "; ")
}

// plainJSONError drops encoding/json's Go vocabulary.
func plainJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	var ue *json.UnmarshalTypeError
	if errors.As(err, &ue) {
		return fmt.Sprintf("a %s where it does not fit, at byte %d", ue.Value, ue.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
