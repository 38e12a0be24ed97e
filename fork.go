package cogloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/orchestrator"
)

// A checkpointed run saves, once at its start, the record startPath: the
// workflow file it loaded, its input and the structure of its loops (and,
// for a fork, where it was forked from). A fork compares the structure with
// the workflow it is given, and reads the input when it is given none.
const startPath = "run:start"

type runStart struct {
	Workflow   string                   `json:"workflow,omitempty"`
	Input      any                      `json:"input,omitempty"`
	Loops      []orchestrator.LoopShape `json:"loops,omitempty"`
	ForkedFrom *forkedFrom              `json:"forked_from,omitempty"`
}

type forkedFrom struct {
	Run  string `json:"run"`
	Pass string `json:"pass"`
}

// WithFork starts the run as a fork of the checkpointed run parent: a new
// run (its own id, [WithRunID] or a fresh one) that keeps the passes of
// parent before pass (their outputs, scores, lessons and spend) and runs from
// pass on, with this workflow (changed prompts are fine; a changed loop
// structure is refused naming what changed, with an error wrapping
// [ErrWorkflowChanged]). pass is "3" (the only top-level loop), "improve:3",
// or "outer:2/inner:3" for a nested loop. An input other than parent's makes
// the forked loops run on it. The new run is checkpointed (resumable, and
// forkable in turn); its run.start event and checkpoint name parent and pass
// (forked_from).
func WithFork(parent, pass string) RunOption {
	return func(o *runOptions) {
		o.fork, o.forkPass, o.checkpoints = parent, pass, true
	}
}

// ForkOrigin reads what the checkpointed run runID started from: the
// workflow file it loaded (empty when it was parsed from bytes) and its
// input. It is what 'cogloop fork' runs when given neither.
func ForkOrigin(ctx context.Context, store memory.Checkpoints, runID string) (workflow string, input any, err error) {
	cp, ok, err := store.LoadCheckpoint(ctx, runID)
	if err != nil {
		return "", nil, fmt.Errorf("fork run %q: %w", runID, err)
	}
	if !ok {
		return "", nil, fmt.Errorf("fork run %q: %w (it was not checkpointed, its checkpoint expired, or it ran against another store)", runID, ErrNoCheckpoint)
	}
	st, _, err := readStart(cp.State)
	if err != nil {
		return "", nil, fmt.Errorf("fork run %q: %w", runID, err)
	}
	return st.Workflow, st.Input, nil
}

func readStart(state map[string][]byte) (runStart, bool, error) {
	var st runStart
	data, ok := state[startPath]
	if !ok {
		return st, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil {
		return st, false, fmt.Errorf("read the run's start record: %w", err)
	}
	st.Input = agents.Plain(st.Input)
	return st, true, nil
}

// start is the start record of a run of w on input.
func (w *Workflow) start(input any) runStart {
	st := runStart{Workflow: w.file, Loops: w.wf.Loops()}
	if _, err := json.Marshal(input); err == nil {
		st.Input = input // an input JSON cannot hold is left out: a fork is then given one
	}
	return st
}

// forkCheckpoint makes the checkpoint a fork starts from: the parent's cut
// at the fork point, saved under the new run id with the new workflow's
// digest and start record.
func (w *Workflow) forkCheckpoint(ctx context.Context, o runOptions, input any, holder string) (*agents.Checkpoint, string, error) {
	fail := func(err error) (*agents.Checkpoint, string, error) {
		return nil, "", fmt.Errorf("fork run %q at pass %s: %w", o.fork, o.forkPass, err)
	}
	at, err := loopnode.ParseForkPoint(o.forkPass)
	if err != nil {
		return fail(err)
	}
	if o.fork == o.runID {
		return fail(fmt.Errorf("the fork needs a run id of its own, not %q", o.runID))
	}
	parent, ok, err := o.store.LoadCheckpoint(ctx, o.fork)
	if err != nil {
		return fail(err)
	}
	if !ok {
		return fail(fmt.Errorf("%w (it was not checkpointed, its checkpoint expired, or it ran against another store)", ErrNoCheckpoint))
	}
	if _, exists, err := o.store.LoadCheckpoint(ctx, o.runID); err != nil {
		return fail(err)
	} else if exists {
		return fail(fmt.Errorf("run %q exists already: fork into a new run id", o.runID))
	}
	old, hasStart, err := readStart(parent.State)
	if err != nil {
		return fail(err)
	}
	st := w.start(input)
	fresh := false
	if hasStart {
		if diff := loopChanges(old.Loops, st.Loops); len(diff) > 0 {
			return fail(fmt.Errorf("%w: the loop structure changed: %s; a fork may change prompts, models and conditions, not the loops' agents", ErrWorkflowChanged, strings.Join(diff, "; ")))
		}
		a, _ := json.Marshal(old.Input)
		b, _ := json.Marshal(input)
		fresh = !bytes.Equal(a, b)
	}
	state, named, err := loopnode.ForkState(parent.State, at, fresh)
	if err != nil {
		return fail(err)
	}
	if err := checkPasses(named, st.Loops); err != nil {
		return fail(err)
	}
	pass := loopnode.FormatForkPoint(named)
	st.ForkedFrom = &forkedFrom{Run: o.fork, Pass: pass}
	data, err := json.Marshal(st)
	if err != nil {
		return fail(err)
	}
	state[startPath] = data
	if err := o.store.SaveCheckpoint(ctx, o.runID, memory.Checkpoint{Digest: w.Digest, State: state, TTL: o.cpTTL, Holder: holder}); err != nil {
		return fail(fmt.Errorf("save the fork's checkpoint: %w", err))
	}
	return agents.NewCheckpoint(o.store, o.runID, w.Digest, state), pass, nil
}

// loopChanges names how the loops of new differ from those of old.
func loopChanges(old, new []orchestrator.LoopShape) []string {
	byPath := func(ls []orchestrator.LoopShape) map[string]orchestrator.LoopShape {
		m := make(map[string]orchestrator.LoopShape, len(ls))
		for _, l := range ls {
			m[l.Path] = l
		}
		return m
	}
	o, n := byPath(old), byPath(new)
	var out []string
	for _, l := range old {
		nl, ok := n[l.Path]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("loop %q is gone", l.Path))
		case !slices.Equal(l.Agents, nl.Agents):
			out = append(out, fmt.Sprintf("loop %q ran agents [%s], now [%s]", l.Path, strings.Join(l.Agents, ", "), strings.Join(nl.Agents, ", ")))
		}
	}
	for _, l := range new {
		if _, ok := o[l.Path]; !ok {
			out = append(out, fmt.Sprintf("loop %q is new", l.Path))
		}
	}
	return out
}

// checkPasses refuses a fork point whose pass the new workflow's loop cannot
// run (its max_loops is below it).
func checkPasses(at []loopnode.ForkPass, loops []orchestrator.LoopShape) error {
	path := ""
	for _, fp := range at {
		path = fault.JoinPath(path, fp.Loop)
		for _, l := range loops {
			if l.Path == path && fp.Pass > l.MaxLoops {
				return fmt.Errorf("loop %q has max_loops %d in this workflow: pass %d would not run", path, l.MaxLoops, fp.Pass)
			}
		}
	}
	return nil
}

// absFile is path made absolute, as a fork finds it from another directory.
func absFile(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

var errForkResume = errors.New("a run is either a fork or a resume: give WithFork or WithResume, not both")
