package agents

import (
	"context"
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"strings"
	"time"
)

// Step is one agent as a workflow runs it: the id its output is recorded under in
// previous_outputs (and the last part of its path), its type name for events, and
// the built agent. Make it with [NewStep] when the agent may be an [Exposer] or
// a [Director]: a literal Step runs its agent and nothing more.
type Step struct {
	ID    string
	Type  string
	Agent Agent

	// exposes and director are the agent's abilities, read by NewStep from
	// the unwrapped agent, so a wrapper (timeout:, retry:) cannot hide them.
	exposes  bool
	director Director
}

// NewStep is the step that runs a as id of type typ, with the abilities a
// sequence acts on ([Exposer], [Director]) read once from [Unwrap](a): a
// router or fork behind timeout: or retry: still routes or exposes its
// branches.
func NewStep(id, typ string, a Agent) Step {
	s := Step{ID: id, Type: typ, Agent: a}
	u := Unwrap(a)
	if e, ok := u.(Exposer); ok && e.ExposesChildren() {
		s.exposes = true
	}
	if d, ok := u.(Director); ok {
		s.director = d
	}
	return s
}

// Optional abilities of agents, declared by the agent type and read from the
// unwrapped agent when its step is made ([NewStep]); Referrer and MayRunner
// are read by the orchestrator's load-time checks, also from [Unwrap].
type (
	// Exposer is an agent whose children's outputs later agents see as their
	// own: after its output, a [Sequence] records each of its Output.Children in
	// previous_outputs (a fork's branch agents, so previous_outputs.<branch agent>
	// works after the fork).
	Exposer interface {
		ExposesChildren() bool
	}

	// Director is an agent that decides what runs next (a router): after it ran
	// with output out, the steps Next returns run in a [Sequence] before the rest
	// of its steps. Next of an error record should return nil.
	Director interface {
		Next(out Output) []Step
	}

	// Referrer is an agent that runs other agents of its workflow by id (a fork's
	// branch agents, a router's routes). The orchestrator warns when one of them
	// is also in its queue, where it would run a second time.
	Referrer interface {
		Refs() []string
	}

	// MayRunner is an agent that may run, at run time, agents of its workflow
	// chosen then (path_executor): MayRun lists every id it could run. The
	// load-time template name check counts them as possibly run after it;
	// unlike a [Referrer]'s, they are not warned about as running twice.
	MayRunner interface {
		MayRun() []string
	}
)

// maxInserted bounds the steps [Director]s may insert into one run of a
// [Sequence], so a route that leads back to its router cannot run forever.
const maxInserted = 1000

// errNotBuilt is the failure of a step whose agent was not built (its definition
// had load problems).
var errNotBuilt = errors.New("agent was not built (see the load problems)")

// RunStep runs s as one step of a workflow: it emits agent start and end events
// (with prompt, response and usage) at the path in.Path › s.ID, runs the agent
// with that path, turns a panic into an error with its stack, and turns a failure
// into an error record ({status: error, error}) that keeps the output's prompt,
// usage and children. It returns an error only when ctx is done or the failure
// is fatal ([fault.IsFatal]) or an interrupt ([fault.AsInterrupt]): the run
// must stop, and the step has no record unless its output carries a typed
// result (a loop's completed passes).
func RunStep(ctx context.Context, s Step, in Input) (Output, error) {
	out, _, err := runStep(ctx, s, in)
	return out, err
}

// runStep is RunStep that also returns the failure of an error record as an
// error carrying the step's path (nil on success).
func runStep(ctx context.Context, s Step, in Input) (out Output, fail, stop error) {
	path := fault.JoinPath(in.Path, s.ID)
	in.Path = path
	observed := in.Run.Wanted(event.AgentEnd)
	failures := observed || in.Run.Wanted(WantFailures) // agent.end of a failed step is read
	var start time.Time
	if failures {
		start = time.Now()
	}
	if observed && in.Run.Wanted(event.AgentStart) {
		in.Run.Emit(event.Event{Kind: event.AgentStart, Time: start, Node: path, Agent: s.ID, Type: s.Type})
		if in.Run.SpanContext != nil {
			ctx = in.Run.SpanContext(ctx, path)
		}
	}
	out, err := safeRun(ctx, s.Agent, in)
	out, fail, stop, err = classify(ctx, path, out, err)
	if observed || (failures && (err != nil || out.Failed())) {
		in.Run.Emit(endEvent(s, path, start, out, err))
	}
	if stop != nil {
		if out.Typed == nil {
			out = Output{}
		}
		// else: a loop stopped by a cancellation, a deadline or a fatal
		// error still reports the passes it completed; the sequence records it.
		return out, nil, stop
	}
	return out, fail, nil
}

// classify sorts the outcome of the agent at path (out, err): a failure
// becomes an error record (fail), one that must stop the run stays an error
// (stop), and err comes back with the path.
func classify(ctx context.Context, path string, out Output, err error) (_ Output, fail, stop, _ error) {
	if err == nil {
		if out.Failed() {
			fail = &fault.PathError{Path: path, Err: errors.New(strings.TrimPrefix(out.Err, path+": "))}
		}
		return out, fail, nil, nil
	}
	err = fault.AtPath(path, err)
	if ctx.Err() != nil || fault.Stops(err) {
		return out, nil, err, err
	}
	rec := ErrorRecord(err)
	rec.Prompt, rec.Usage, rec.Children = out.Prompt, out.Usage, out.Children
	return rec, err, nil, err
}

// endEvent is the agent.end event of step s at path, started at start,
// that returned out and err.
func endEvent(s Step, path string, start time.Time, out Output, err error) event.Event {
	now := time.Now()
	end := event.Event{Kind: event.AgentEnd, Time: now, Node: path, Agent: s.ID, Type: s.Type, Duration: now.Sub(start), Prompt: out.Prompt}
	switch {
	case fault.AsInterrupt(err) != nil:
		end.Data = map[string]any{"status": fault.AsInterrupt(err).Status}
	case err != nil:
		end.Error, end.Err = err.Error(), err
	case out.Failed():
		end.Error = out.Err
		fallthrough
	default:
		end.Response = out.Text()
		if out.Usage != (spend.Usage{}) {
			u := out.Usage
			end.Usage = &u
		}
	}
	return end
}

// WantFailures is a name [Run.Wants] may report, not an event kind: an
// observer that wants it but not [event.AgentEnd] reads the agent.end events
// of failed steps only (an error, or an error record), so steps that succeed
// build none.
const WantFailures = "agent.end (failed steps)"

// Observed reports whether events of r reach an observer, so callers can skip
// building events nobody receives. It is safe on a nil *Run.
func (r *Run) Observed() bool { return r != nil && r.Observe != nil }

// Wanted reports whether an event of kind reaches an observer that reads it
// ([Run.Wants]), so producers can skip building what nobody reads. It is safe
// on a nil *Run.
func (r *Run) Wanted(kind string) bool {
	return r != nil && r.Observe != nil && (r.Wants == nil || r.Wants(kind))
}

// checkpoint is r's checkpoint; nil on a nil *Run.
func (r *Run) checkpoint() *Checkpoint {
	if r == nil {
		return nil
	}
	return r.Checkpoint
}

// safeRun runs a, turning a panic into an error with its stack.
func safeRun(ctx context.Context, a Agent, in Input) (out Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = Output{}, fault.FromPanic(r)
		}
	}()
	if a == nil {
		return Output{}, errNotBuilt
	}
	return a.Run(ctx, in)
}

// Sequence runs steps one after another, as a workflow runs its queue and a fork
// runs one branch. It is an [Agent]; it is immutable and safe for concurrent Run
// calls.
type Sequence struct {
	Steps []Step
	// StopOnError ends the run at the first step that ends as an error record,
	// returning that step's failure (a fork's fail_fast); otherwise a failed step
	// is recorded and the next steps still run, as in OrKa.
	StopOnError bool
}

var _ Agent = Sequence{}

// Run runs the steps in order. Each step sees in.Previous plus the outputs
// recorded before it; an [Exposer]'s children are recorded right after it, and a
// [Director]'s next steps run right after it. Cancellation stops the run between
// and during steps and is returned as an error.
//
// The output's Children are the outputs this run recorded (not in.Previous), in
// run order; Response and Prompt are the last successful step's; Usage sums
// every step's. On an error the output holds what was recorded so far.
func (q Sequence) Run(ctx context.Context, in Input) (Output, error) {
	r := seqRun{in: in, own: &Outputs{}, prev: in.Previous, alone: in.Previous.Len() == 0, cp: in.Run.checkpoint()}
	// A run continued after an interrupt takes the outputs its steps saved.
	r.restoring = r.cp.hasSteps()
	queue := q.Steps
	var pending []Step // steps inserted by directors, run before queue
	for len(pending) > 0 || len(queue) > 0 {
		var s Step
		if len(pending) > 0 {
			s, pending = pending[0], pending[1:]
		} else {
			s, queue = queue[0], queue[1:]
		}
		if err := ctx.Err(); err != nil {
			return r.result(), fault.AtPath(in.Path, err)
		}
		out, fail, stop := r.run(ctx, s)
		if stop != nil {
			err := r.stop(ctx, s, out, stop) // records a typed output: before result
			return r.result(), err
		}
		if r.cp != nil {
			r.finished = r.finished.With(s.ID, out)
		}
		out, next, fail := r.direct(s, out, fail)
		r.record(s, out)
		if fail == nil {
			r.lastResponse, r.lastPrompt = out.Response, out.Prompt
		} else if q.StopOnError {
			return r.result(), fail
		}
		if len(next) > 0 {
			pending = append(append([]Step(nil), next...), pending...)
		}
	}
	return r.result(), nil
}

// seqRun is the state of one run of a [Sequence].
type seqRun struct {
	in Input
	// own holds this run's records; prev is in.Previous plus them, what each
	// step sees. Both extend in place while they are the newest snapshot of
	// their log, so a step costs O(1) however many ran before it.
	own  *Outputs
	prev *Outputs
	// Without earlier outputs what a step sees is own so far (alone): one
	// log serves both (each record and its template map made once).
	alone        bool
	usage        spend.Usage
	lastResponse any
	lastPrompt   string
	inserted     int // steps inserted by directors so far
	cp           *Checkpoint
	restoring    bool     // cp holds saved steps of an interrupted run
	finished     *Outputs // this run's steps, saved when it is interrupted
}

// see makes the record v of id part of what the next steps see.
func (r *seqRun) see(id string, v *outVal) {
	if r.alone {
		r.prev = r.own.snapshot()
	} else {
		r.prev = r.prev.with(id, v)
	}
}

// result is the sequence's output so far.
func (r *seqRun) result() Output {
	res := Output{Usage: r.usage, Response: r.lastResponse, Prompt: r.lastPrompt}
	if r.own.Len() > 0 {
		res.Children = r.own
	}
	return res
}

// run runs step s, or takes its saved output when the run is restored.
func (r *seqRun) run(ctx context.Context, s Step) (out Output, fail, stop error) {
	restored := false
	if r.restoring {
		path := fault.JoinPath(r.in.Path, s.ID)
		if out, restored, stop = r.cp.restoreStep(path); restored && out.Failed() {
			fail = &fault.PathError{Path: path, Err: errors.New(out.Err)}
		}
	}
	if !restored && stop == nil {
		sin := r.in
		sin.Previous = r.prev
		out, fail, stop = runStep(ctx, s, sin)
	}
	return out, fail, stop
}

// stop ends the run at step s, which stopped it with stop (out: its
// output): a typed result is recorded, and on an interrupt the steps that
// finished are saved. It returns the run's error.
func (r *seqRun) stop(ctx context.Context, s Step, out Output, stop error) error {
	if out.Typed != nil {
		r.usage = r.usage.Add(out.Usage)
		r.own.record(s.ID, &outVal{out: out})
	}
	if fault.AsInterrupt(stop) != nil {
		if err := r.cp.SaveSteps(context.WithoutCancel(ctx), r.in.Path, r.finished); err != nil {
			return fault.AtPath(r.in.Path, err)
		}
	}
	return stop
}

// direct asks a director step s that succeeded (out, fail) which steps run
// next; past maxInserted in one run, s fails instead.
func (r *seqRun) direct(s Step, out Output, fail error) (Output, []Step, error) {
	if s.director == nil || out.Failed() {
		return out, nil, fail
	}
	next := s.director.Next(out)
	if len(next) == 0 {
		return out, nil, fail
	}
	if r.inserted += len(next); r.inserted > maxInserted {
		fail = fault.AtPath(fault.JoinPath(r.in.Path, s.ID), errTooManyInserted)
		rec := ErrorRecord(fail)
		rec.Usage = out.Usage
		return rec, nil, fail
	}
	return out, next, fail
}

// record records step s's output, and an exposer's children after it.
func (r *seqRun) record(s Step, out Output) {
	r.usage = r.usage.Add(out.Usage)
	v := &outVal{out: out}
	r.own.record(s.ID, v)
	r.see(s.ID, v)
	if s.exposes {
		out.Children.each(func(rec *outRec) bool {
			r.own.record(rec.id, rec.outVal)
			r.see(rec.id, rec.outVal)
			return true
		})
	}
}

var errTooManyInserted = fmt.Errorf("routes inserted more than %d agents in one run; a route probably leads back to its router", maxInserted)

// Unwrap returns the agent a wrapper (an agent with an Unwrap() Agent method,
// such as retry.Agent) runs, peeling every layer; a that wraps nothing is
// returned as is. Code that asks for an agent's concrete type (a join looking
// for its fork) asks it of Unwrap(a).
func Unwrap(a Agent) Agent {
	for range 100 {
		u, ok := a.(interface{ Unwrap() Agent })
		if !ok {
			return a
		}
		a = u.Unwrap()
	}
	return a
}
