package orchestrator

import (
	"context"
	"errors"
	"time"

	"github.com/cogloop/cogloop/agents"
)

// Workflow is a built workflow: its queue of agents in run order. It is an
// [agents.Agent]; a loop runs one as its internal workflow.
type Workflow struct {
	// ID is the orchestrator id.
	ID    string
	steps []step
}

type step struct {
	id, typ string
	agent   agents.Agent
	deps    []string
}

var _ agents.Agent = (*Workflow)(nil)

// Queue lists the agent ids in run order.
func (w *Workflow) Queue() []string {
	out := make([]string, len(w.steps))
	for i, s := range w.steps {
		out[i] = s.id
	}
	return out
}

// Run runs the queue in order. Each agent sees the outputs of the agents before it
// (on top of in.Previous); an agent that fails becomes an error record and the
// next agents still run, as in OrKa. Cancellation stops the run between and
// during steps and is returned as an error. The output's Response is the last
// successful agent's response; Children holds every agent's output in run order.
func (w *Workflow) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	prev := in.Previous
	var usage agents.Usage
	var last agents.Output
	haveLast := false
	for _, s := range w.steps {
		if err := ctx.Err(); err != nil {
			return agents.Output{Children: prev, Usage: usage}, agents.AtPath(in.Path, err)
		}
		out, err := w.runStep(ctx, s, in, prev)
		if err != nil {
			return agents.Output{Children: prev, Usage: usage}, err
		}
		usage = usage.Add(out.Usage)
		prev = prev.With(s.id, out)
		if !out.Failed() {
			last, haveLast = out, true
		}
	}
	res := agents.Output{Children: prev, Usage: usage}
	if haveLast {
		res.Response = last.Response
		res.Prompt = last.Prompt
	}
	return res, nil
}

// runStep runs one agent with events around it. It returns an error only when the
// run must stop (cancellation); any other failure is an error record.
func (w *Workflow) runStep(ctx context.Context, s step, in agents.Input, prev *agents.Outputs) (agents.Output, error) {
	path := agents.JoinPath(in.Path, s.id)
	in.Run.Emit(agents.Event{Kind: agents.EventAgentStart, Node: path, Agent: s.id, Type: s.typ})
	start := time.Now()
	out, err := safeRun(ctx, s.agent, agents.Input{
		Value: in.Value, Previous: prev, Loop: in.Loop, Vars: in.Vars, Path: path, Run: in.Run,
	})
	end := agents.Event{Kind: agents.EventAgentEnd, Node: path, Agent: s.id, Type: s.typ, Duration: time.Since(start)}
	if err != nil {
		err = agents.AtPath(path, err)
		end.Error = err.Error()
		end.Prompt = out.Prompt
		in.Run.Emit(end)
		if ctx.Err() != nil {
			return agents.Output{}, err
		}
		rec := agents.ErrorRecord(err)
		rec.Prompt, rec.Usage = out.Prompt, out.Usage
		return rec, nil
	}
	end.Prompt = out.Prompt
	end.Response = out.Text()
	if out.Usage != (agents.Usage{}) {
		u := out.Usage
		end.Usage = &u
	}
	if out.Failed() {
		end.Error = out.Err
	}
	in.Run.Emit(end)
	return out, nil
}

// safeRun runs a, turning a panic into an error with its stack.
func safeRun(ctx context.Context, a agents.Agent, in agents.Input) (out agents.Output, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = agents.PanicError(r)
		}
	}()
	if a == nil {
		return agents.Output{}, errNotBuilt
	}
	return a.Run(ctx, in)
}

var errNotBuilt = errors.New("agent was not built (see the load problems)")
