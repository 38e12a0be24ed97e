package human

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/internal/jsonschemax"
)

// Answer kinds.
const (
	KindApprove = "approve" // approve or reject, with an optional comment
	KindScore   = "score"   // a number in [0, 1] (8/10 and 80% are read too)
	KindText    = "text"    // free text
	KindChoice  = "choice"  // one of the question's options
	KindJSON    = "json"    // a JSON value valid against the question's schema
)

// Kinds lists the answer kinds.
var Kinds = []string{KindApprove, KindScore, KindText, KindChoice, KindJSON}

// Question is what a waiting run asks: where, of what kind, with which
// options, since and until when.
type Question struct {
	RunID    string          `json:"run,omitempty"`
	Path     string          `json:"path"`
	Agent    string          `json:"agent"`
	Kind     string          `json:"kind"`
	Text     string          `json:"question"`
	Options  []string        `json:"options,omitempty"`
	Schema   json.RawMessage `json:"schema,omitempty"` // kind json: the answer's JSON Schema
	AskedAt  time.Time       `json:"asked_at"`
	Expires  time.Time       `json:"expires,omitzero"` // zero: never (the checkpoint's TTL still applies)
	Tool     string          `json:"tool,omitempty"`   // approve_tools: the tool call to approve
	ToolArgs string          `json:"tool_args,omitempty"`
}

// Answer is a person's answer. Kind says which of the value fields counts.
type Answer struct {
	Kind     string    `json:"kind"`
	Approved bool      `json:"approved,omitempty"`
	Score    float64   `json:"score,omitempty"`
	Text     string    `json:"text,omitempty"`
	Choice   string    `json:"choice,omitempty"`
	JSON     any       `json:"json,omitempty"`
	Comment  string    `json:"comment,omitempty"`
	By       string    `json:"answered_by,omitempty"`
	At       time.Time `json:"answered_at,omitzero"`
	// Path picks the question when a run waits for several (parallel
	// branches); empty answers the first by path. It is not stored.
	Path string `json:"path,omitempty"`
}

// Errors of [Check], which callers act on (the CLI exits 2 on them).
var (
	// ErrWrongKind: the answer is of another kind than the question asks.
	ErrWrongKind = errors.New("the answer is of the wrong kind")
	// ErrBadAnswer: the answer is of the right kind but not one the
	// question takes (a score out of range, a choice not offered, JSON the
	// schema refuses).
	ErrBadAnswer = errors.New("the answer is not one the question takes")
)

// maxAnswerBytes bounds an answer's text, comment and JSON.
const maxAnswerBytes = 64 << 10

// Check reports whether a answers q: its kind, range, option or schema.
func Check(q Question, a Answer) error {
	if a.Kind != q.Kind {
		return fmt.Errorf("%w: agent %q asks for %s (%s), not %s", ErrWrongKind, q.Agent, q.Kind, flagFor(q.Kind), a.Kind)
	}
	if len(a.Comment) > maxAnswerBytes || len(a.Text) > maxAnswerBytes {
		return fmt.Errorf("%w: the text is longer than %d bytes", ErrBadAnswer, maxAnswerBytes)
	}
	switch q.Kind {
	case KindScore:
		if math.IsNaN(a.Score) || a.Score < 0 || a.Score > 1 {
			return fmt.Errorf("%w: score %g is out of range: give a number from 0 to 1 (or 8/10, 80%%)", ErrBadAnswer, a.Score)
		}
	case KindChoice:
		if !slices.Contains(q.Options, a.Choice) {
			return fmt.Errorf("%w: %q is not one of the options %s", ErrBadAnswer, a.Choice, strings.Join(quoted(q.Options), ", "))
		}
	case KindText:
		if strings.TrimSpace(a.Text) == "" {
			return fmt.Errorf("%w: the text is empty", ErrBadAnswer)
		}
	case KindJSON:
		return checkJSON(q, a.JSON)
	}
	return nil
}

func checkJSON(q Question, v any) error {
	raw, err := json.Marshal(v)
	if err != nil || len(raw) > maxAnswerBytes {
		return fmt.Errorf("%w: the JSON value cannot be encoded or is longer than %d bytes", ErrBadAnswer, maxAnswerBytes)
	}
	if len(q.Schema) == 0 {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal(q.Schema, &doc); err != nil {
		return fmt.Errorf("agent %q: its output_schema cannot be read: %w", q.Agent, err)
	}
	s, _, err := jsonschemax.CompileValidator(doc, "human-answer.json")
	if err != nil {
		return fmt.Errorf("agent %q: its output_schema does not compile: %w", q.Agent, err)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return fmt.Errorf("%w: %w", ErrBadAnswer, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%w: the JSON value does not match the output_schema at /%s: %v", ErrBadAnswer,
			strings.Join(jsonschemax.ErrorLocation(err), "/"), err) //nolint:errorlint // one sentinel is enough: the validation error is text for the person
	}
	return nil
}

// ParseScore reads a score as the CLI takes it: 0.8, 8/10, 80%.
func ParseScore(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if len(s) > 32 {
		return 0, fmt.Errorf("%w: score %q is too long", ErrBadAnswer, s[:32])
	}
	if num, den, ok := strings.Cut(s, "/"); ok {
		n, err1 := strconv.ParseFloat(strings.TrimSpace(num), 64)
		d, err2 := strconv.ParseFloat(strings.TrimSpace(den), 64)
		if err1 != nil || err2 != nil || d <= 0 {
			return 0, fmt.Errorf("%w: score %q is not N/M with M above 0", ErrBadAnswer, s)
		}
		return n / d, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return 0, fmt.Errorf("%w: score %q is not a percentage", ErrBadAnswer, s)
		}
		return v / 100, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: score %q is not a number", ErrBadAnswer, s)
	}
	return v, nil
}

// flagFor is the cogloop answer flag of a kind.
func flagFor(kind string) string {
	switch kind {
	case KindApprove:
		return "--approve or --reject"
	case KindScore:
		return "--score N"
	case KindText:
		return "--text T"
	case KindChoice:
		return "--choice C"
	case KindJSON:
		return "--json V"
	}
	return kind
}

// FlagFor is the `cogloop answer` flag that answers q.
func (q Question) FlagFor() string { return flagFor(q.Kind) }

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Fields are the answer as the step's output fields: approved, score,
// text, choice, json (the kind's), comment, answered_by, answered_at.
func (a Answer) Fields() map[string]any {
	m := map[string]any{"kind": a.Kind, "comment": a.Comment, "answered_by": a.By}
	if !a.At.IsZero() {
		m["answered_at"] = a.At.UTC().Format(time.RFC3339)
	}
	switch a.Kind {
	case KindApprove:
		m["approved"] = a.Approved
	case KindScore:
		m["score"] = a.Score
	case KindText:
		m["text"] = a.Text
	case KindChoice:
		m["choice"] = a.Choice
	case KindJSON:
		m["json"] = a.JSON
	}
	return m
}

// Response is the answer as the step's response text, in forms a loop
// reads like a model's: "APPROVED"/"REJECTED", "SCORE: 0.8", the text, the
// choice, the JSON; a comment follows on its own line (a loop's lesson
// patterns read it).
func (a Answer) Response() string {
	var s string
	switch a.Kind {
	case KindApprove:
		s = "REJECTED"
		if a.Approved {
			s = "APPROVED"
		}
	case KindScore:
		s = "SCORE: " + strconv.FormatFloat(a.Score, 'f', -1, 64)
	case KindText:
		s = a.Text
	case KindChoice:
		s = a.Choice
	case KindJSON:
		raw, _ := json.Marshal(a.JSON)
		s = string(raw)
	}
	if a.Comment != "" {
		s += "\n" + a.Comment
	}
	return s
}
