package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
)

// Kind is what an LLM agent makes of the model's reply.
type Kind int

// Kinds of LLM agent.
const (
	// Answer: the reply's text (openai-answer, local_llm, llm, scripted).
	Answer Kind = iota
	// Binary: true when the reply affirms (openai-binary).
	Binary
	// Classification: the option the reply names, or NotClassified (openai-classification).
	Classification
)

// NotClassified is a classification agent's response when the reply names no option.
const NotClassified = "not-classified"

// DefaultConfidence is the confidence field of a reply that does not state one.
const DefaultConfidence = "0.5"

// defaultConfidence is DefaultConfidence as a field value.
var defaultConfidence any = DefaultConfidence

// Instructions appended to the rendered prompt, as OrKa does, so that the model
// knows the expected answer form.
const (
	binaryInstruction         = "Answer with only true or false."
	classificationInstruction = "Answer with exactly one of these options: %s. If none fits, answer " + NotClassified + "."
)

// maxMatch caps how much of a reply is searched by the binary and classification
// matchers.
const maxMatch = 64 << 10

// Agent is an LLM agent: it renders its prompt once, asks its model (with retries
// and a timeout), and shapes the reply as OrKa does. Build one with the
// registered factories, or directly for Go programs. It is immutable and safe
// for concurrent Run calls.
type Agent struct {
	// ID is the agent id: the scripted model answers by it, events name it.
	ID string
	// Kind is what the reply becomes.
	Kind Kind
	// Prompt is the user message template; System the optional system message.
	Prompt, System *prompt.Template
	// Model answers the calls unless the run supplies models (Run.Models) and
	// UseRunModels is set.
	Model        agents.Model
	UseRunModels bool
	// ModelName is sent as the request's model ("" leaves it to Model).
	ModelName   string
	Temperature float64
	MaxTokens   int
	// Timeout bounds the whole call, retries and waits included; 0 means none.
	Timeout time.Duration
	// MaxReplyBytes bounds each reply (max_reply_bytes): a longer one fails
	// the call; 0 means the orchestrator's or (4 MiB).
	MaxReplyBytes int64
	// Options are a classification agent's options.
	Options []string
	// Schema, when set, asks for structured output (output_schema): the
	// reply is validated and repaired; its object's fields land in the output.
	Schema *Schema
	// Tools are the agents the model may call (tools:); MaxToolRounds bounds
	// the model ↔ tools round trips of one call (0: [defaultMaxToolRounds]);
	// ToolChoice is auto (or ""), required, none or a tool's name, applied
	// to the first round.
	Tools         []*agents.Tool
	MaxToolRounds int
	// ApproveTools are the tools whose every call waits for a person's
	// approve (approve_tools:; "all" for every tool); a rejection goes back
	// to the model as the tool's result, with the comment.
	ApproveTools []string
	ToolChoice   string
	// Retry runs the calls; its Policy says when to retry. A nil Retry.Logger
	// means slog.Default() at call time.
	Retry retry.Retrier

	once    sync.Once
	options []*regexp.Regexp
	perRun  *runScripts // the scripted type: replies per run
}

var (
	_ agents.Agent      = (*Agent)(nil)
	_ agents.ModelUser  = (*Agent)(nil)
	_ agents.SecretUser = (*Agent)(nil)
	_ agents.Referrer   = (*Agent)(nil)
)

var affirmative = regexp.MustCompile(`(?i)\b(yes|true|correct|right|affirmative)\b`)

// Run renders the prompt, calls the model and returns OrKa's shape: Response (text,
// bool or option), Fields {confidence, internal_reasoning}, Prompt (what was sent)
// and Usage (summed over attempts, with its cost when the call ran under a
// budget that prices its model).
//
// Before each attempt the call's worst case ([agents.Request.WorstCase]: the estimated
// prompt plus MaxTokens) is reserved in in.Budget; a call that does not fit is
// not made and fails with [spend.ErrBudgetExceeded], which is never retried.
// After the attempt the budget counts the reply's usage (an estimate when the
// model reports none).
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	text, err := in.Render(a.Prompt)
	if err != nil {
		return agents.Output{}, fmt.Errorf("render prompt: %w", err)
	}
	system, err := in.Render(a.System)
	if err != nil {
		return agents.Output{}, fmt.Errorf("render system_prompt: %w", err)
	}
	if a.Kind != Answer || a.Schema != nil {
		text += a.instruction()
	}
	own := a.Secrets()
	out := agents.Output{Prompt: in.Run.Scrub(text, own...)}

	model, isOwn := a.Model, true
	if a.perRun != nil {
		model, isOwn = a.perRun.model(in.Run), false
	}
	if a.UseRunModels && in.Run != nil && in.Run.Models != nil {
		// A source that has no model for this agent (nil, nil) leaves it
		// on its configured provider.
		m, err := in.Run.Models.ModelFor(a.ID)
		if err != nil {
			return out, err
		}
		if m != nil {
			model, isOwn = m, false
		}
	}
	if model == nil {
		return out, errors.New("agent has no model")
	}
	req := agents.Request{Agent: a.ID, Model: a.ModelName, System: system, Prompt: text,
		Temperature: a.Temperature, MaxTokens: a.MaxTokens, MaxReplyBytes: replyLimit(a.MaxReplyBytes)}
	req.Schema = a.Schema.request(a.ID)

	callCtx := ctx
	if a.Timeout > 0 {
		var dl *lazyDeadline
		now := time.Now()
		if callCtx, dl = withDeadline(ctx, now, now.Add(a.Timeout)); dl != nil {
			defer dl.stop()
		}
	}
	r := a.Retry
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	if s, ok := model.(interface{ Secrets() []secrets.Secret }); ok {
		keys := own // the agent's own model: its keys are known
		if !isOwn {
			keys = s.Secrets()
		}
		if len(keys) > 0 {
			r.Secrets = append(append([]secrets.Secret(nil), r.Secrets...), keys...)
		}
	}
	tools, err := expandTools(callCtx, a.Tools)
	if err != nil {
		return out, err
	}
	var reply agents.Reply
	var records []toolRecord
	saved, err := a.restoreRound(in)
	if err != nil {
		return out, err
	}
	first := 1
	if saved != nil {
		first = saved.Round
	}
	for round := first; ; round++ {
		req.Tools, req.ToolChoice = a.specs(tools, round)
		if saved != nil {
			// A run continued after an approval: the model's reply of this
			// round is the one it gave before, not asked again.
			reply, req.Messages, records, out.Usage = saved.Reply, saved.Messages, saved.records(), saved.Usage
			saved = nil
		} else if reply, err = a.ask(callCtx, in, model, r, req, &out); err != nil {
			break
		}
		if len(reply.ToolCalls) == 0 {
			break
		}
		if round > a.maxRounds() {
			err = a.tooManyRounds(round-1, reply.ToolCalls)
			break
		}
		calls := callIDs(round, reply.ToolCalls)
		rejected, stop := a.approve(callCtx, in, savedRound{Round: round, Messages: req.Messages, Reply: reply, Records: records, Usage: out.Usage}, calls)
		if stop != nil {
			err = stop
			break
		}
		recs, stop := a.runRound(callCtx, in, tools, round, calls, r.Secrets, rejected)
		records = append(records, recs...)
		for _, rec := range recs {
			out.Usage = out.Usage.Add(rec.usage)
		}
		if stop != nil {
			err = stop
			break
		}
		req.Messages = append(req.Messages, roundMessages(reply, calls, recs)...)
	}
	var obj map[string]any
	if err == nil && a.Schema != nil {
		reply, obj, err = a.conform(callCtx, in, model, r, req, reply, &out)
	}
	var toolCalls []any
	if len(a.Tools) > 0 || len(records) > 0 {
		toolCalls = make([]any, len(records))
		for i, rec := range records {
			toolCalls[i] = rec.Map()
		}
	}
	if err != nil {
		if toolCalls != nil {
			// a failed call's record keeps the tools that ran
			out.Fields = map[string]any{"tool_calls": toolCalls}
		}
		if a.Timeout > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no reply within the agent's timeout of %s: %w", a.Timeout, err)
		}
		return out, err
	}

	resp, conf, reasoning := ParseReply(reply.Text)
	var confidence any = conf
	if conf == DefaultConfidence {
		confidence = defaultConfidence // boxed once, not per call
	}
	out.Fields = map[string]any{"confidence": confidence, "internal_reasoning": reasoning}
	if toolCalls != nil {
		out.Fields["tool_calls"] = toolCalls
	}
	switch a.Kind {
	case Binary:
		out.Response = Affirmative(resp)
	case Classification:
		out.Response = a.pick(resp)
	default:
		out.Response = resp
	}
	if obj != nil {
		a.shape(obj, &out)
		out.Order = replyOrder(reply.Text, out.Response)
	}
	return out, nil
}

// ask makes one model call of a round (with retries): the round's worst case
// is reserved in the budget before each attempt and its usage counted after.
func (a *Agent) ask(ctx context.Context, in agents.Input, model agents.Model, r retry.Retrier, req agents.Request, out *agents.Output) (agents.Reply, error) {
	priceAs := a.pricedModel()
	worst := req.WorstCase()
	var reply agents.Reply
	err := r.Do(ctx, in, a.ID, func(ctx context.Context, attempt int) error {
		if err := in.Run.Fence(ctx); err != nil {
			return err
		}
		res, err := in.Budget.Reserve(priceAs, worst)
		if err != nil {
			return err
		}
		call := req
		call.Scrub = func(s string) string { return in.Run.Scrub(s, r.Secrets...) }
		var ds *deltas
		if in.Run != nil && in.Run.Deltas {
			ds = newDeltas(in, a.ID, attempt, r.Secrets)
			call.OnDelta = ds.write
		}
		reported := in.Run != nil && in.Run.ModelCalls
		var began time.Time
		if reported {
			began = time.Now()
		}
		rep, err := model.Generate(ctx, call)
		if ds != nil {
			ds.close()
		}
		if reported {
			a.reportCall(in, model, call, attempt, time.Since(began), rep, err, r.Secrets)
		}
		counted := rep.Usage
		if counted == (spend.Usage{}) && err == nil {
			// No usage reported: the budget counts an estimate instead, so a
			// token limit still holds; the output reports what the model said.
			counted = spend.Usage{PromptTokens: worst.PromptTokens, CompletionTokens: spend.EstimateTokens(rep.Text)}
		}
		counted = res.Settle(counted)
		if rep.Usage != (spend.Usage{}) {
			rep.Usage.Cost = counted.Cost
		}
		out.Usage = out.Usage.Add(rep.Usage)
		if err != nil {
			return err
		}
		if int64(len(rep.Text)) > call.MaxReplyBytes {
			// A model that does not bound its own reading (a Go model, the scripted one).
			return retry.Permanent(tooLarge(describe(model), a.ID, call.MaxReplyBytes, call.OnDelta != nil))
		}
		if strings.TrimSpace(rep.Text) == "" && len(rep.ToolCalls) == 0 {
			return fmt.Errorf("%s: %w", describe(model), agents.ErrEmptyReply)
		}
		// The one place a model's words enter the run: no configured key
		// goes further (outputs, events, history, checkpoints).
		rep.Text = in.Run.Scrub(rep.Text, r.Secrets...)
		if len(rep.ToolCalls) > 0 {
			calls := make([]agents.ToolCall, len(rep.ToolCalls)) // the model's slice is not ours to change
			for i, c := range rep.ToolCalls {
				c.Args = in.Run.Scrub(c.Args, r.Secrets...)
				calls[i] = c
			}
			rep.ToolCalls = calls
		}
		reply = rep
		return nil
	})
	return reply, err
}

// InheritMaxReplyBytes sets the agent's reply limit to n unless the agent
// sets its own: how the orchestrator's max_reply_bytes reaches its agents. It
// is called while the workflow is built, never during a run.
func (a *Agent) InheritMaxReplyBytes(n int64) {
	if a.MaxReplyBytes == 0 {
		a.MaxReplyBytes = n
	}
}

// Secrets returns the API keys of the agent's model ([agents.SecretUser]), so
// the run scrubs them from every reply, whichever agent echoes them.
func (a *Agent) Secrets() []secrets.Secret {
	if s, ok := a.Model.(interface{ Secrets() []secrets.Secret }); ok {
		return s.Secrets()
	}
	return nil
}

// answerFields are the fields every LLM agent's output has besides its
// output_schema's (an error record's result, status and error included).
var answerFields = []string{"response", "confidence", "internal_reasoning", "formatted_prompt", "_metrics", "tool_calls", "result", "status", "error"}

// DeclaredFields lists every field the agent's output can have when its
// output_schema says so (properties, and additionalProperties not true),
// with the fields every answer has; nil when that is not known.
func (a *Agent) DeclaredFields() []string {
	if a.Schema == nil {
		return nil
	}
	props, ok := a.Schema.Doc["properties"].(map[string]any)
	if !ok || a.Schema.Doc["additionalProperties"] == true || a.Schema.Doc["patternProperties"] != nil {
		return nil
	}
	out := slices.Clone(answerFields)
	for k := range props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// MissingKey names the environment variable the agent's model needs and that
// is not set; "" when it has its key or needs none (the scripted type).
func (a *Agent) MissingKey() string {
	if m, ok := a.Model.(interface{ MissingKey() string }); ok {
		return m.MissingKey()
	}
	return ""
}

// Models names the model the agent's calls are priced as ([agents.ModelUser]):
// its ModelName, or the model its provider falls back to; none for the scripted
// type, whose replies cost nothing.
func (a *Agent) Models() []string {
	if m := a.pricedModel(); m != "" {
		return []string{m}
	}
	return nil
}

// pricedModel is the model name costs are looked up by: ModelName, else the
// provider's fallback ($BASE_OPENAI_MODEL for OpenAI), else "" (free: the
// scripted type, or a call that will fail for want of a model).
func (a *Agent) pricedModel() string {
	if a.ModelName != "" || a.perRun != nil {
		return a.ModelName
	}
	if m, ok := a.Model.(*Model); ok {
		if name, err := m.modelName(""); err == nil {
			return name
		}
	}
	return ""
}

func describe(m agents.Model) string {
	if s, ok := m.(fmt.Stringer); ok {
		return "call " + s.String()
	}
	return "call model"
}

func (a *Agent) instruction() string {
	if a.Schema != nil {
		return a.Schema.instruction()
	}
	switch a.Kind {
	case Binary:
		return "\n\n" + binaryInstruction
	case Classification:
		if len(a.Options) == 0 {
			return "\n\nNo options are given: answer " + NotClassified + "."
		}
		return "\n\n" + fmt.Sprintf(classificationInstruction, strings.Join(a.Options, ", "))
	}
	return ""
}

// Affirmative reports whether text contains, as a whole word and in any case,
// yes, true, correct, right or affirmative — OrKa's list. Unlike OrKa (a substring
// test) "incorrect" or "bright" do not count; like OrKa, negation is not
// understood ("not correct" is true).
func Affirmative(text string) bool {
	if len(text) > maxMatch {
		text = text[:maxMatch]
	}
	return affirmative.MatchString(text)
}

// compileOptions prepares the whole-word matchers of the options.
func (a *Agent) compileOptions() {
	a.options = make([]*regexp.Regexp, len(a.Options))
	for i, o := range a.Options {
		a.options[i] = regexp.MustCompile(`(?i)(?:^|[^\pL\pN_])(` + regexp.QuoteMeta(o) + `)(?:$|[^\pL\pN_])`)
	}
}

// pick returns the option the reply names: an exact answer (ignoring case,
// surrounding quotes and final punctuation) wins; otherwise the option that
// occurs first as a whole word (the longer one on a tie); otherwise NotClassified.
func (a *Agent) pick(reply string) string {
	a.once.Do(a.compileOptions)
	s := strings.Trim(strings.TrimSpace(reply), "\"'`*.!")
	for _, o := range a.Options {
		if strings.EqualFold(s, o) {
			return o
		}
	}
	if len(reply) > maxMatch {
		reply = reply[:maxMatch]
	}
	best, bestAt := NotClassified, -1
	for i, re := range a.options {
		loc := re.FindStringSubmatchIndex(reply)
		if loc == nil {
			continue
		}
		at := loc[2]
		if bestAt < 0 || at < bestAt || (at == bestAt && len(a.Options[i]) > len(best)) {
			best, bestAt = a.Options[i], at
		}
	}
	return best
}

var think = regexp.MustCompile(`(?s)<think>(.*?)</think>`)

// ParseReply splits a model reply into OrKa's response, confidence and
// internal_reasoning. A <think>…</think> block is removed from the text and
// becomes the reasoning. If the rest is (or contains, in a ```json fence or as
// its outermost {…}) a JSON object with a "response" key — the envelope OrKa asks
// its models for — the envelope's fields are used; a missing confidence is
// [DefaultConfidence]. Otherwise the response is the trimmed text and the
// confidence DefaultConfidence (OrKa's value for a reply it could not parse).
func ParseReply(text string) (response, confidence, reasoning string) {
	// Most replies have no <think>: skip the regexp for them.
	if strings.Contains(text, "<think>") {
		if m := think.FindStringSubmatch(text); m != nil {
			reasoning = strings.TrimSpace(m[1])
			text = think.ReplaceAllString(text, "")
		}
	}
	text = strings.TrimSpace(text)
	if env, ok := envelope(text); ok {
		response = valueText(env["response"])
		confidence = DefaultConfidence
		if c, ok := env["confidence"]; ok && c != nil {
			confidence = valueText(c)
		}
		if r, ok := env["internal_reasoning"]; ok && r != nil {
			reasoning = valueText(r)
		}
		return response, confidence, reasoning
	}
	return text, DefaultConfidence, reasoning
}

var fence = regexp.MustCompile("(?s)```(?:json|JSON)?\\s*(\\{.*?\\})\\s*```")

func envelope(text string) (map[string]any, bool) {
	// Every candidate is a JSON object: no '{', no envelope (a cheaper test
	// than the search for "response", which most replies would make in full).
	if len(text) > 1<<20 || strings.IndexByte(text, '{') < 0 || !strings.Contains(text, "response") {
		return nil, false
	}
	cands := []string{text}
	if m := fence.FindStringSubmatch(text); m != nil {
		cands = append(cands, m[1])
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		cands = append(cands, text[i:j+1])
	}
	for _, c := range cands {
		d := json.NewDecoder(bytes.NewReader([]byte(c)))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil || d.More() {
			continue
		}
		if _, ok := m["response"]; ok {
			return m, true
		}
	}
	return nil, false
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return agents.Text(v)
}
