package agents

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/lease"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/memory"
)

// Agent is one runnable unit of a workflow: an LLM call, a validator, a router, a
// loop, a whole sub-workflow.
type Agent interface {
	Run(ctx context.Context, in Input) (Output, error)
}

// Func adapts an ordinary function to [Agent], like http.HandlerFunc.
type Func func(ctx context.Context, in Input) (Output, error)

// Run calls f(ctx, in).
func (f Func) Run(ctx context.Context, in Input) (Output, error) { return f(ctx, in) }

// Input is everything an agent sees for one call. Nothing is ambient: templates,
// helpers and models read only what is here.
type Input struct {
	// Value is the workflow input as OrKa passes it: the user's text (or JSON value)
	// at top level; inside a loop iteration, the wrapper mapping
	// {input, previous_outputs, loop_number, past_loops_metadata, ...}.
	Value any
	// Previous holds the outputs of the agents already run in this workflow, in run order.
	Previous *Outputs
	// Loop is the state of the innermost enclosing loop iteration, nil outside loops.
	Loop *LoopState
	// Vars are extra template variables (loop variables, input mappings).
	Vars map[string]any
	// Path names where this call happens ("improve › iteration 2 › scorer"),
	// for errors and events. Empty at top level.
	Path string
	// Run is shared by every call of one workflow run.
	Run *Run
	// Budget is the innermost budget scope the call runs in: a model call
	// reserves its worst case here, and so in every enclosing scope, before it
	// is made ([spend.Budget.Reserve]). Nil means no budget (nothing is limited or
	// priced). Composites pass it on; a loop or workflow with its own budget
	// passes a [spend.Budget.Child].
	Budget *spend.Budget
}

// LoopState is what a loop iteration hands to the agents inside it.
type LoopState struct {
	// Number is the 1-based iteration number.
	Number int
	// PastLoops is the history of earlier iterations (OrKa's past_loops entries).
	PastLoops []map[string]any
	// Metadata is the dynamic past_loops_metadata of OrKa §1.8.
	Metadata map[string]any
	// Score is the previous iteration's score (0 on the first).
	Score float64
	// Task is the pass's task: the loop's input without OrKa's wrapper
	// (after feedback: the previous answer, or the input with it appended).
	Task any
	// Order, when set, is the key order templates see the pass's wrapper
	// (the Input.Value the loop hands its agents) in, as OrKa builds it.
	Order *pyvalue.Order

	inputView atomic.Pointer[inputView] // the wrapper as templates see it, made once
}

// Past is PastLoops as typed values (see [ReadPastLoop]).
func (s *LoopState) Past() []PastLoop {
	if s == nil {
		return nil
	}
	out := make([]PastLoop, len(s.PastLoops))
	for i, m := range s.PastLoops {
		out[i] = ReadPastLoop(m)
	}
	return out
}

// Run carries what every agent of one workflow run shares.
type Run struct {
	// ID names the run in events, traces and stores.
	ID string
	// Observe receives every event; nil discards them.
	Observe event.Observer
	// Wants, when set, names the event kinds Observe reads: producers may skip
	// building the others (see [Run.Wanted]). Nil means every kind. It may
	// also report [WantFailures]: agent.end events of failed steps only.
	Wants func(kind string) bool
	// Models, when set, answers LLM calls instead of the configured provider
	// (the scripted model, or a test fake).
	Models ModelSource
	// Memory keeps what outlives a run: loop histories (persist_across_runs) and
	// memory agents' entries. Nil means the run has none.
	Memory memory.Store
	// Checkpoint saves loop and step state for resuming; nil saves nothing.
	Checkpoint *Checkpoint
	// Lease is the run's claim on its run id ([Run.Fence]); nil fences nothing.
	Lease *lease.Lease
	// MaxTotalIterations caps the iterations of all loops of the run together
	// (the orchestrator's max_total_iterations); 0 means the loops' default.
	MaxTotalIterations int
	// Strict turns run-time warnings into errors (--strict, strict: true on the
	// orchestrator): [Run.Warn] returns them.
	Strict bool
	// Deltas asks LLM agents to stream replies where the provider can, and to
	// emit [event.AgentDelta] events as the text arrives (cogloop run -v).
	Deltas bool
	// Paused, when set, reports whether a pause was asked for (cogloop pause,
	// SIGTSTP); loops ask it at each pass boundary and stop with a
	// [fault.Interrupt] of status paused when it says yes.
	Paused func(ctx context.Context) bool
	// ModelCalls asks LLM agents to emit an [event.ModelCall] event per model
	// call (the OpenTelemetry spans are built from them).
	ModelCalls bool
	// Workflow is the id of the workflow (its orchestrator id) the run runs:
	// loops keep their persisted history per workflow under
	// memory.HistoryID(Workflow, loop id). Empty keys by the loop id alone.
	Workflow string
	// SpanContext, when set (tracing), returns ctx carrying the span of the
	// agent at node, so the agent, its model calls and the caller's own
	// instrumentation run under it; the step runner calls it after the
	// agent's agent.start event.
	SpanContext func(ctx context.Context, node string) context.Context

	locals  sync.Map
	secrets atomic.Pointer[secrets.Set] // what Scrub replaces; nil: none yet
}

// Local returns the run's value for key, creating it with init on first use. It
// keeps per-run state of agents that are otherwise immutable (a scripted agent's
// position in its replies); the state lives as long as the Run. Keys should be
// pointers owned by the caller, so they cannot collide.
func (r *Run) Local(key any, init func() any) any {
	if v, ok := r.locals.Load(key); ok {
		return v
	}
	v, _ := r.locals.LoadOrStore(key, init())
	return v
}

// Emit sends e to the run's observer, filling in the run id and time.
// It is safe on a nil *Run.
func (r *Run) Emit(e event.Event) {
	if r == nil || r.Observe == nil {
		return
	}
	e.Run = r.ID
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	r.Observe(e)
}

// Warn reports a warning: it emits e as a warning event (Kind is set to
// [event.Warning]; Node, Agent and Message say where and what). Under [Run.Strict]
// it returns the warning as an error wrapping [ErrStrict], which the caller must
// fail with; otherwise nil. It is safe on a nil *Run.
func (r *Run) Warn(e event.Event) error {
	e.Kind = event.Warning
	r.Emit(e)
	if r == nil || !r.Strict {
		return nil
	}
	return fault.AtPath(e.Node, fmt.Errorf("%w: %s", ErrStrict, e.Message))
}

// Output is what an agent returns.
type Output struct {
	// Response is the agent's answer: text for LLM agents, a bool for binary ones,
	// a list or mapping for nodes. Templates read it as previous_outputs.<id>.response.
	Response any
	// Fields are the agent's extra fields in OrKa's shape (confidence,
	// internal_reasoning, boolean_evaluations, merged, ...). Templates see them next
	// to response.
	Fields map[string]any
	// Prompt is the rendered prompt, when the agent rendered one.
	Prompt string
	// Usage is the model tokens this call used, summed over retries and children.
	Usage spend.Usage
	// Err is set on an error record: the agent failed and the workflow went on.
	Err string
	// Shape, when set, is the mapping templates and loop scoring see for this
	// output: OrKa's shape of a node whose answer text is not OrKa's response
	// (a loop's response is OrKa's loop dict, graph-scout has no response at
	// all). [Output.Map] returns a copy of it; Response stays the answer the
	// CLI, return: and Go callers read. It must hold plain values only.
	Shape map[string]any
	// Order, when set, is the key order templates see the output's mapping
	// in, and the order of mappings inside it (see [pyvalue.Order]; a JSON
	// reply's objects in the reply's order, a loop's past_loops entries in
	// OrKa's). Without it, or for the keys it does not list, the mapping is
	// in OrKa's order of an agent's result: response, confidence,
	// internal_reasoning, the other keys sorted, _metrics and
	// formatted_prompt last. With [Output.Shape] it orders the shape.
	Order *pyvalue.Order
	// Typed is the agent's own Go result, when it has one (a loop's
	// *loopnode.Result): Go callers read it instead of decoding Fields;
	// templates never see it.
	Typed any
	// Children are the outputs of the agents a composite ran (a workflow's agents,
	// a fork's branches), in run order; nil for leaf agents. A loop reads an
	// iteration's results from here.
	Children *Outputs
}

// Failed reports whether o is an error record.
func (o Output) Failed() bool { return o.Err != "" }

// ErrorRecord is the output OrKa records for a failed agent: {status: error, error}.
func ErrorRecord(err error) Output {
	return Output{Err: err.Error()}
}

// Map returns o in the shape templates see: [Output.Shape] when set, else
// response, the extra fields, and for an error record {result: null, status:
// error, error}. The map is fresh; callers may keep it.
func (o Output) Map() map[string]any {
	if o.Shape != nil && !o.Failed() {
		m := make(map[string]any, len(o.Shape))
		for k, v := range o.Shape {
			m[k] = v
		}
		return m
	}
	return o.Record()
}

// Record returns o as cogloop records it (run --json, run records, golden
// transcripts): the extra fields and response, the answer — [Output.Map]
// without [Output.Shape]. The map is fresh; callers may keep it.
func (o Output) Record() map[string]any {
	m := make(map[string]any, len(o.Fields)+4)
	if o.Failed() {
		m["result"] = nil
		m["status"] = "error"
		m["error"] = o.Err
		return m
	}
	for k, v := range o.Fields {
		m[k] = v
	}
	m["response"] = o.Response
	if o.Prompt != "" {
		m["formatted_prompt"] = o.Prompt
	}
	if o.Usage != (spend.Usage{}) {
		metrics := map[string]any{
			"prompt_tokens":     o.Usage.PromptTokens,
			"completion_tokens": o.Usage.CompletionTokens,
			"total_tokens":      o.Usage.Total(),
		}
		if o.Usage.Cost > 0 {
			metrics["cost_usd"] = o.Usage.Cost
		}
		m["_metrics"] = metrics
	}
	return m
}

// Text returns the response as text: a string as is, other values formatted.
func (o Output) Text() string { return Text(o.Response) }

// Fence is checked before every model call: it fails, fatally, once another
// process took the run over ([lease.Lease.Check]). It is safe on a nil *Run.
func (r *Run) Fence(ctx context.Context) error {
	if r == nil {
		return nil
	}
	return r.Lease.Check(ctx)
}

// FieldRef is a read of an agent's output field that the load can check
// (a loop condition's previous_outputs.review.approved): What reads it,
// where.
type FieldRef struct {
	Agent, Field, What string
	Pos                load.Pos
}
