package human

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/jsonschemax"
	"github.com/cogloop/cogloop/prompt"
)

// Type is the agent type name.
const Type = "human"

// StatePrefix names the waiting records among a checkpoint's paths:
// "human:<path>" holds a [Wait].
const StatePrefix = "human:"

// Wait is a human step's record in its run's checkpoint: the question, and
// the answer once one was given.
type Wait struct {
	Question Question `json:"question"`
	Answer   *Answer  `json:"answer,omitempty"`
}

// Func answers a question in the process that runs the workflow (a Go
// service's own UI, the CLI's prompt on a terminal). An error fails the step.
type Func func(ctx context.Context, q Question) (Answer, error)

type funcKey struct{}

// Provide makes fn answer the human steps of run; call it before the run
// starts.
func Provide(run *agents.Run, fn Func) {
	if run != nil && fn != nil {
		run.Local(funcKey{}, func() any { return fn })
	}
}

func provided(run *agents.Run) Func {
	if run == nil {
		return nil
	}
	fn, _ := run.Local(funcKey{}, func() any { return Func(nil) }).(Func)
	return fn
}

// Agent is a human step.
type Agent struct {
	ID      string
	Prompt  *prompt.Template
	Kind    string
	Options []string
	Schema  json.RawMessage
	// Timeout, when positive, is how long the question waits; then Default
	// answers it, or without a default the step fails.
	Timeout time.Duration
	Default *Answer
}

var _ agents.Agent = (*Agent)(nil)

// Register adds the human type to r.
func Register(r *agents.Registry) { r.MustRegister(Type, factory) }

func factory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Agent{ID: c.String("id", ""), Prompt: b.Template(c, "prompt")}
	if !c.Has("prompt") && !c.Recording() {
		c.Errorf("id", "a human step needs a prompt: the question it asks")
	}
	a.Kind = c.String("kind", KindApprove)
	if !slices.Contains(Kinds, a.Kind) && !c.Recording() {
		c.Errorf("kind", "kind %q is not one of %v", a.Kind, Kinds)
	}
	a.Options = c.Strings("options")
	switch {
	case c.Recording():
	case a.Kind == KindChoice && len(a.Options) == 0:
		c.Errorf("kind", "kind choice needs options: [the choices]")
	case a.Kind != KindChoice && len(a.Options) > 0:
		c.Errorf("options", "options are for kind choice, not %s", a.Kind)
	}
	if c.Has("output_schema") {
		a.Schema = readSchema(c, a)
	}
	a.Timeout = c.Duration("timeout", 0)
	if c.Has("default") {
		var v any
		if c.Decode("default", &v) && !c.Recording() {
			d, err := defaultAnswer(a, v)
			if err != nil {
				c.Errorf("default", "default: %v", err)
			}
			a.Default = d
		}
	}
	return a, nil
}

// readSchema reads output_schema: a JSON Schema object for kind json,
// compiled to check it (nil with a problem on c when it is not one).
func readSchema(c *load.Config, a *Agent) json.RawMessage {
	var v any
	if !c.Decode("output_schema", &v) || c.Recording() {
		return nil
	}
	doc, ok := v.(map[string]any)
	switch {
	case !ok:
		c.Errorf("output_schema", "output_schema must be a JSON Schema object")
	case a.Kind != KindJSON:
		c.Errorf("output_schema", "output_schema is for kind json, not %s", a.Kind)
	default:
		_, raw, err := jsonschemax.CompileValidator(doc, a.ID+".output_schema.json")
		if err == nil {
			return raw
		}
		c.Errorf("output_schema", "output_schema does not compile: %v", err)
	}
	return nil
}

// defaultAnswer reads default: as an answer of a's kind.
func defaultAnswer(a *Agent, v any) (*Answer, error) {
	d := &Answer{Kind: a.Kind, By: "default"}
	ok := true
	switch a.Kind {
	case KindApprove:
		d.Approved, ok = v.(bool)
	case KindScore:
		switch x := v.(type) {
		case int:
			d.Score = float64(x)
		case float64:
			d.Score = x
		default:
			ok = false
		}
	case KindText:
		d.Text, ok = v.(string)
	case KindChoice:
		d.Choice, ok = v.(string)
	case KindJSON:
		d.JSON = v
	}
	if !ok {
		return nil, fmt.Errorf("%v is not an answer of kind %s (%s)", v, a.Kind, flagFor(a.Kind))
	}
	if err := Check(Question{Agent: a.ID, Kind: a.Kind, Options: a.Options, Schema: a.Schema}, *d); err != nil {
		return nil, err
	}
	return d, nil
}

// Run asks the question: by saving it in the checkpoint and stopping the run
// with a waiting interrupt (a continued run finds the answer there), or,
// in a run without a checkpoint, through the run's callback ([Provide]).
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	var cp *agents.Checkpoint
	if in.Run != nil {
		cp = in.Run.Checkpoint
	}
	var w Wait
	found, err := cp.Restore(StatePrefix+in.Path, &w)
	if err != nil {
		return agents.Output{}, err
	}
	q := w.Question
	switch {
	case found && w.Answer == nil && !q.Expires.IsZero() && !time.Now().Before(q.Expires):
		// asked before, and nobody answered in time
		return a.expired(in, q)
	case !found:
		if q, err = a.question(in); err != nil {
			return agents.Output{Prompt: q.Text}, err
		}
	}
	ans, err := Await(ctx, in.Run, q)
	if err != nil {
		return agents.Output{Prompt: q.Text}, err
	}
	return output(q, ans), nil
}

func output(q Question, ans Answer) agents.Output {
	return agents.Output{Response: ans.Response(), Fields: ans.Fields(), Prompt: q.Text}
}

func (a *Agent) question(in agents.Input) (Question, error) {
	text, err := in.Render(a.Prompt)
	q := Question{Path: in.Path, Agent: a.ID, Kind: a.Kind, Text: text, Options: a.Options, Schema: a.Schema, AskedAt: time.Now().UTC()}
	if in.Run != nil {
		q.RunID = in.Run.ID
	}
	if a.Timeout > 0 {
		q.Expires = q.AskedAt.Add(a.Timeout)
	}
	return q, err
}

// expired is the step's outcome when nobody answered in time.
func (a *Agent) expired(in agents.Input, q Question) (agents.Output, error) {
	if a.Default == nil {
		return agents.Output{Prompt: q.Text}, fmt.Errorf("nobody answered agent %q within its timeout %s (give it default: to go on without an answer)", a.ID, a.Timeout)
	}
	d := *a.Default
	d.At = time.Now()
	Emit(in.Run, q.Path, a.ID, q, d)
	return output(q, d), nil
}

// emitWait reports that q waits for an answer as a human.wait event.
func emitWait(run *agents.Run, q Question) {
	data := map[string]any{"kind": q.Kind, "question": q.Text, "options": q.Options, "expires": ""}
	if !q.Expires.IsZero() {
		data["expires"] = q.Expires.UTC().Format(time.RFC3339)
	}
	if q.Tool != "" {
		data["tool"] = q.Tool
	}
	run.Emit(event.Event{Kind: event.HumanWait, Node: q.Path, Agent: q.Agent, Type: Type, Message: q.Text, Data: data})
}

// Emit reports answer ans to question q as a human.answer event.
func Emit(run *agents.Run, path, agent string, q Question, ans Answer) {
	data := ans.Fields()
	data["kind"] = q.Kind
	if !ans.At.IsZero() && !q.AskedAt.IsZero() {
		data["waited_ms"] = max(0, ans.At.Sub(q.AskedAt).Milliseconds())
	}
	if q.Tool != "" {
		data["tool"] = q.Tool
	}
	run.Emit(event.Event{Kind: event.HumanAnswer, Node: path, Agent: agent, Type: Type, Response: ans.Response(), Data: data})
}

// Await answers q in run, for a step that asks a person as part of its
// work (an LLM agent's approve_tools): the answer saved in the checkpoint by
// [Answer] earlier, else through the run's callback when the run has no
// checkpoint; else q is saved and a waiting [fault.Interrupt] returned. An
// answer found is reported as a human.answer event.
func Await(ctx context.Context, run *agents.Run, q Question) (Answer, error) {
	var cp *agents.Checkpoint
	if run != nil {
		cp = run.Checkpoint
	}
	var w Wait
	found, err := cp.Restore(StatePrefix+q.Path, &w)
	if err != nil {
		return Answer{}, err
	}
	if found && w.Answer != nil {
		Emit(run, q.Path, q.Agent, w.Question, *w.Answer)
		return *w.Answer, nil
	}
	if found {
		q = w.Question
	}
	emitWait(run, q)
	if fn := provided(run); fn != nil && cp == nil {
		ans, err := fn(ctx, q)
		if err != nil {
			return Answer{}, fault.Fatal(fmt.Errorf("agent %q: no answer: %w", q.Agent, err), "")
		}
		if ans.At.IsZero() {
			ans.At = time.Now()
		}
		if err := Check(q, ans); err != nil {
			return Answer{}, err
		}
		Emit(run, q.Path, q.Agent, q, ans)
		return ans, nil
	}
	if cp == nil {
		return Answer{}, fault.Fatal(fmt.Errorf("agent %q asks a person but the run cannot wait: it has no checkpoint", q.Agent),
			"run with a store that keeps checkpoints (cogloop run --redis URL; in Go WithCheckpoints), or answer in the process (on a terminal the CLI asks; in Go WithHuman)")
	}
	if !found {
		if err := cp.Save(context.WithoutCancel(ctx), StatePrefix+q.Path, Wait{Question: q}); err != nil {
			return Answer{}, fault.Fatal(fmt.Errorf("agent %q: save its question: %w", q.Agent, err), "")
		}
	}
	return Answer{}, &fault.Interrupt{Status: fault.Waiting, Path: q.Path, Agent: q.Agent, Question: &q}
}
