package llm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tmc/langchaingo/llms"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/internal/jsonschemax"
	"github.com/cogloop/cogloop/internal/pyvalue"
)

// defaultMaxRepairs is how many times a reply that does not match an agent's
// output_schema is sent back to the model with what is wrong.
const defaultMaxRepairs = 2

// maxStructured bounds the reply text parsed as structured output.
const maxStructured = 1 << 20

// Schema is an LLM agent's structured output (output_schema): the reply must
// be one JSON object valid against Doc (draft 2020-12 unless it names another
// with $schema; a $ref outside Doc is never fetched). The YAML loader
// compiles Doc at load, so a bad schema is a load error; a Schema built in Go
// is compiled on first use, and a bad Doc fails the call. Do not change a
// Schema after its first use; it is then safe for concurrent use.
type Schema struct {
	// Doc is the JSON Schema, decoded.
	Doc map[string]any
	// MaxRepairs bounds the repair rounds of one call (output_schema's
	// default is 2).
	MaxRepairs int
	// PromptOnly leaves the provider's JSON mode off: the prompt's
	// instructions alone ask for JSON (OrKa's mode: prompt).
	PromptOnly bool

	once     sync.Once
	compiled *jsonschema.Schema
	text     string // Doc as indented JSON, for the instructions
	err      error
}

// schemaURL names an output_schema inside the compiler (never fetched).
const schemaURL = "urn:cogloop:output_schema"

// compile compiles Doc once.
func (s *Schema) compile() error {
	s.once.Do(func() {
		var raw []byte
		s.compiled, raw, s.err = jsonschemax.Compile(s.Doc, schemaURL)
		s.text = string(raw)
	})
	return s.err
}

// instruction is what the prompt adds so that the model answers with JSON.
func (s *Schema) instruction() string {
	if s.compile() != nil {
		return ""
	}
	return "\n\nAnswer with one JSON object and nothing else (no prose, no code fence), valid against this JSON Schema:\n" + s.text
}

// request is the schema as the model request carries it.
func (s *Schema) request(agent string) *agents.ResponseSchema {
	if s == nil || s.PromptOnly {
		return nil
	}
	return &agents.ResponseSchema{Name: agent, Schema: s.Doc}
}

// violation is why a reply is not the structured output asked for: not JSON,
// not an object, or the first violation of the schema and where (a JSON path,
// "$.score").
type violation struct {
	Path string
	Msg  string
}

func (v *violation) Error() string {
	if v.Path == "" {
		return v.Msg
	}
	return "at " + v.Path + ": " + v.Msg
}

// Check parses text as the structured output: a JSON object, alone or in a
// ```json fence (a <think> block before it is dropped), valid against the
// schema. It returns the object with plain Go values (whole numbers int).
func (s *Schema) Check(text string) (map[string]any, error) {
	if err := s.compile(); err != nil {
		return nil, fmt.Errorf("output_schema is not a valid JSON Schema: %w", err)
	}
	body, err := jsonBody(text)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		return nil, &violation{Path: "$", Msg: fmt.Sprintf("the reply is not JSON: %v", err)}
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil, &violation{Path: "$", Msg: "the reply must be one JSON object"}
	}
	if err := s.compiled.Validate(inst); err != nil {
		return nil, firstViolation(err)
	}
	obj, _ := agents.Plain(inst).(map[string]any)
	return obj, nil
}

// replyOrder is the key order of a structured reply's JSON object, which
// templates see its fields in (OrKa keeps the parsed object as it came), and
// of resp when the object itself is the response; nil when the text is not
// read as one.
func replyOrder(text string, resp any) *pyvalue.Order {
	body, err := jsonBody(text)
	if err != nil {
		return nil
	}
	o, err := pyvalue.JSONOrder([]byte(body))
	if err != nil || o == nil {
		return nil
	}
	if _, whole := resp.(map[string]any); whole {
		sub := make(map[string]*pyvalue.Order, len(o.Sub)+1)
		maps.Copy(sub, o.Sub)
		sub["response"] = &pyvalue.Order{Keys: o.Keys, Sub: o.Sub}
		o.Sub = sub
	}
	return o
}

// jsonBody finds the JSON text of a reply.
func jsonBody(text string) (string, error) {
	if len(text) > maxStructured {
		return "", &violation{Path: "$", Msg: fmt.Sprintf("the reply is %d bytes, more than the %d read as structured output", len(text), maxStructured)}
	}
	if i := strings.Index(text, "</think>"); i >= 0 && strings.Contains(text[:i], "<think>") {
		text = text[i+len("</think>"):]
	}
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") {
		return t, nil
	}
	if m := fence.FindStringSubmatch(t); m != nil {
		return m[1], nil
	}
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		return t[i : j+1], nil
	}
	return "", &violation{Path: "$", Msg: "the reply holds no JSON object"}
}

// firstViolation is the first leaf error of a validation, with its path.
func firstViolation(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &violation{Path: "$", Msg: err.Error()}
	}
	out := ve.BasicOutput()
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		return &violation{Path: jsonPath(u.InstanceLocation), Msg: u.Error.String()}
	}
	return &violation{Path: jsonPath(""), Msg: "does not match the schema"}
}

// jsonPath turns a JSON pointer ("/items/0/score") into a JSON path
// ("$.items[0].score").
func jsonPath(ptr string) string {
	var b strings.Builder
	b.WriteString("$")
	if ptr == "" {
		return b.String()
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if isIndex(tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		b.WriteString("." + tok)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// repairPrompt is the message that sends a failed reply back.
func repairPrompt(v error) string {
	return "Your reply does not match the required JSON Schema: " + v.Error() +
		"\nAnswer again with only the corrected JSON object."
}

// conform checks the call's final reply against the schema; a reply that
// does not match goes back to the model (the reply, then what is wrong) at
// most MaxRepairs times, each a round of its own (reserved in the budget,
// counted in the output's usage). It returns the reply that matched and its
// object, or fails naming the first violation and its JSON path.
func (a *Agent) conform(ctx context.Context, in agents.Input, model agents.Model, r retry.Retrier, req agents.Request, reply agents.Reply, out *agents.Output) (agents.Reply, map[string]any, error) {
	if err := a.Schema.compile(); err != nil {
		return reply, nil, fmt.Errorf("output_schema is not a valid JSON Schema: %w", err)
	}
	for repairs := 0; ; repairs++ {
		obj, verr := a.Schema.Check(reply.Text)
		if verr == nil {
			return reply, obj, nil
		}
		if repairs >= a.Schema.MaxRepairs {
			return reply, nil, fmt.Errorf("the reply does not match output_schema (%d repair rounds tried, max_repairs): %w; the reply began %q",
				repairs, verr, fault.Truncate(reply.Text, 120))
		}
		a.repairing(in, repairs+1, verr)
		req.Messages = append(slices.Clip(req.Messages),
			agents.Message{Role: "assistant", Text: reply.Text},
			agents.Message{Role: "user", Text: repairPrompt(verr)})
		var err error
		if reply, err = a.ask(ctx, in, model, r, req, out); err != nil {
			return reply, nil, err
		}
		if len(reply.ToolCalls) > 0 {
			return reply, nil, fmt.Errorf("the model asked for tools (%s) in a repair round of output_schema, instead of answering with the JSON object", reply.ToolCalls[0].Name)
		}
	}
}

// repairing tells the run that a reply is sent back for repair round n.
func (a *Agent) repairing(in agents.Input, n int, verr error) {
	if !in.Run.Wanted(event.OutputRepair) {
		return
	}
	path := "$"
	var v *violation
	if errors.As(verr, &v) {
		path = v.Path
	}
	in.Run.Emit(event.Event{Kind: event.OutputRepair, Node: in.Path, Agent: a.ID,
		Message: in.Run.Scrub(verr.Error()),
		Data:    map[string]any{"round": n, "max_repairs": a.Schema.MaxRepairs, "path": path}})
}

// shape puts the object into the output: its fields land in Fields (so
// templates read previous_outputs.<id>.<field>), and the response is the
// object's response (an answer), result (binary) or category
// (classification) when it has one, else the object itself.
func (a *Agent) shape(obj map[string]any, out *agents.Output) {
	fields := make(map[string]any, len(obj)+len(out.Fields))
	for k, v := range out.Fields {
		fields[k] = v
	}
	for k, v := range obj {
		fields[k] = v
	}
	key := "response"
	switch a.Kind {
	case Binary:
		key = "result"
	case Classification:
		key = "category"
	}
	resp, ok := obj[key]
	if !ok {
		resp, ok = obj["response"]
	}
	switch {
	case !ok:
		out.Response = obj
	case a.Kind == Binary:
		if b, isBool := resp.(bool); isBool {
			out.Response = b
		} else {
			out.Response = Affirmative(agents.Text(resp))
		}
	case a.Kind == Classification:
		out.Response = a.pick(agents.Text(resp))
	default:
		out.Response = resp
	}
	delete(fields, "response")
	out.Fields = fields
}

// schemaOptions map a request's schema onto the provider: JSON mode
// (response_format json_object; Ollama's format json) for OpenAI and Ollama.
// langchaingo v0.1.14 sets a JSON-schema response format only per client, not
// per call, and OpenAI-compatible servers differ in what they accept
// (LM Studio refuses json_object), so the others get the prompt's
// instructions alone; the reply is validated either way.
func (m *Model) schemaOptions(req agents.Request) []llms.CallOption {
	if req.Schema == nil {
		return nil
	}
	switch m.cfg.Provider {
	case OpenAI, Ollama:
		return []llms.CallOption{llms.WithJSONMode()}
	}
	return nil
}
