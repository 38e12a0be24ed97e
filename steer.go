package cogloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
)

// Statuses of a run that stopped without ending: both exit the CLI with
// code 3 and continue through the checkpoint path a resume takes.
const (
	// StatusWaiting: a human step waits for an answer ([Answer]).
	StatusWaiting = fault.Waiting
	// StatusPaused: the run stopped at a pass boundary ([RequestPause]).
	StatusPaused = fault.Paused
)

// Errors of the steering API, which callers act on (the CLI exits 2).
var (
	// ErrNotWaiting: the run asks no question (it never waited, it ended,
	// or its checkpoint expired).
	ErrNotWaiting = errors.New("the run does not wait for an answer")
	// ErrAlreadyAnswered: the question was answered already (a racing
	// answer won).
	ErrAlreadyAnswered = errors.New("the question was answered already")
	// ErrWrongKind: the answer is of another kind than the question's
	// (an answer out of range, not an option or refused by the question's
	// schema is [human.ErrBadAnswer]).
	ErrWrongKind = human.ErrWrongKind
	// ErrNotRunning: a pause named a run that has no checkpoint or ended.
	ErrNotRunning = errors.New("the run is not running")
)

// pausePath holds a run's pause request in its checkpoint.
const pausePath = "run:pause"

// waitingIndex is the pseudo-run whose checkpoint lists the waiting runs:
// one state per run id holding its questions.
const waitingIndex = "cogloop:waiting"

// WithHuman answers the run's human steps with fn in this process (a
// service's own UI, the CLI's prompt on a terminal) instead of ending the
// run waiting. With checkpoints the run still waits durably: it saves the
// question and what it finished, fn's answer is recorded with [Answer] and
// the run continues through the resume path, so a process killed while fn
// waits leaves a run that [Answer] and [WithResume] continue elsewhere.
func WithHuman(fn human.Func) RunOption {
	return func(o *runOptions) { o.human = fn }
}

// runAnswering runs with checkpoints and answers each question the run
// waits for with o.human, continuing it through the resume path.
func (w *Workflow) runAnswering(ctx context.Context, input any, o runOptions, opts []RunOption) (*Result, error) {
	fn := o.human
	legs := append(slices.Clone(opts), WithRunID(o.runID), WithMemory(o.store), func(o *runOptions) { o.human = nil })
	res, err := w.Run(ctx, input, legs...)
	for res != nil && res.Status == StatusWaiting && res.Waiting != nil {
		q := *res.Waiting
		ans, cerr := fn(ctx, q)
		if cerr != nil {
			return res, fmt.Errorf("run %q: the answer to agent %q: %w", res.RunID, q.Agent, cerr)
		}
		ans.Path = q.Path
		if err := Answer(ctx, o.store, res.RunID, ans); err != nil {
			return res, err
		}
		res, err = w.Run(ctx, input, append(legs, WithResume(res.RunID, o.allowChange))...)
	}
	return res, err
}

// Answer records a as the answer to the question run runID waits for (the
// first by path when several wait; a.Path picks one) and reports nothing
// else: continue the run with [WithResume]. Exactly one of two racing
// answers wins in a store that implements [memory.States] (both built-in
// stores do); the other gets [ErrAlreadyAnswered]. An answer of the wrong
// kind, out of range, for a run that does not wait or twice is refused and
// changes nothing.
func Answer(ctx context.Context, store memory.Store, runID string, a human.Answer) error {
	cp, ok, err := store.LoadCheckpoint(ctx, runID)
	if err != nil {
		return fmt.Errorf("answer run %q: %w", runID, err)
	}
	if !ok {
		return fmt.Errorf("answer run %q: %w (no checkpoint: it never waited, ran against another store, or expired)", runID, ErrNotWaiting)
	}
	path, w, raw, answered := pick(cp, a.Path)
	switch {
	case raw == nil && answered:
		return fmt.Errorf("answer run %q: %w", runID, ErrAlreadyAnswered)
	case raw == nil && a.Path != "":
		return fmt.Errorf("answer run %q: %w at %q", runID, ErrNotWaiting, a.Path)
	case raw == nil:
		return fmt.Errorf("answer run %q: %w", runID, ErrNotWaiting)
	case !w.Question.Expires.IsZero() && time.Now().After(w.Question.Expires):
		return fmt.Errorf("answer run %q: %w: the question of agent %q expired at %s; continue the run (--resume) to take its default",
			runID, ErrNotWaiting, w.Question.Agent, w.Question.Expires.UTC().Format(time.RFC3339))
	}
	a.Path = ""
	if a.At.IsZero() {
		a.At = time.Now().UTC()
	}
	if err := human.Check(w.Question, a); err != nil {
		return fmt.Errorf("answer run %q: %w", runID, err)
	}
	w.Answer = &a
	next, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("answer run %q: %w", runID, err)
	}
	if err := swap(ctx, store, runID, cp.Digest, human.StatePrefix+path, raw, next); err != nil {
		return fmt.Errorf("answer run %q: %w", runID, err)
	}
	_ = unindex(ctx, store, runID)
	return nil
}

// pick finds the waiting record to answer: at path, or the first
// unanswered one by path. answered reports that an answered one exists.
func pick(cp memory.Checkpoint, path string) (string, human.Wait, []byte, bool) {
	var paths []string
	for p := range cp.State {
		if rest, ok := strings.CutPrefix(p, human.StatePrefix); ok && (path == "" || rest == path) {
			paths = append(paths, rest)
		}
	}
	slices.Sort(paths)
	answered := false
	for _, p := range paths {
		raw := cp.State[human.StatePrefix+p]
		var w human.Wait
		if json.Unmarshal(raw, &w) != nil {
			continue
		}
		if w.Answer != nil {
			answered = true
			continue
		}
		return p, w, raw, answered
	}
	return "", human.Wait{}, nil, answered
}

// swap replaces old with next at path: atomically in a store with
// [memory.States], else with a save (atomic within one process only).
func swap(ctx context.Context, store memory.Store, runID, digest, path string, old, next []byte) error {
	if ss, ok := store.(memory.States); ok {
		won, err := ss.SwapState(ctx, runID, path, old, next)
		if err != nil {
			return err
		}
		if !won {
			return ErrAlreadyAnswered
		}
		return nil
	}
	cur, ok, err := store.LoadCheckpoint(ctx, runID)
	if err != nil {
		return err
	}
	if !ok || !bytes.Equal(cur.State[path], old) {
		return ErrAlreadyAnswered
	}
	return store.SaveCheckpoint(ctx, runID, memory.Checkpoint{Digest: digest, State: map[string][]byte{path: next}})
}

// RequestPause asks run runID to stop at its next pass boundary with status
// paused (continue it with [WithResume]). The run reads the request from
// store, so it works from another process when the store is shared (Redis).
func RequestPause(ctx context.Context, store memory.Store, runID string) error {
	cp, ok, err := store.LoadCheckpoint(ctx, runID)
	if err != nil {
		return fmt.Errorf("pause run %q: %w", runID, err)
	}
	if !ok {
		return fmt.Errorf("pause run %q: %w (no checkpoint: it never ran with checkpoints, ran against another store, or expired)", runID, ErrNotRunning)
	}
	if _, done := cp.State[finishedPath]; done {
		return fmt.Errorf("pause run %q: %w: it ended", runID, ErrNotRunning)
	}
	mark, _ := json.Marshal(map[string]any{"at": time.Now().UTC().Format(time.RFC3339)})
	if err := store.SaveCheckpoint(ctx, runID, memory.Checkpoint{Digest: cp.Digest, State: map[string][]byte{pausePath: mark}}); err != nil {
		return fmt.Errorf("pause run %q: %w", runID, err)
	}
	return nil
}

// pauser is the run's [agents.Run.Paused]: it reads the pause request from
// the store (one read per pass boundary), or nil when the store cannot.
func pauser(store memory.Store, runID string) func(context.Context) bool {
	ss, ok := store.(memory.States)
	if !ok {
		return nil
	}
	return func(ctx context.Context) bool {
		_, asked, err := ss.LoadState(ctx, runID, pausePath)
		return err == nil && asked
	}
}

// clearPause drops the pause request of a run that continues.
func clearPause(ctx context.Context, store memory.Store, runID string) {
	ss, ok := store.(memory.States)
	if !ok {
		return
	}
	if raw, asked, err := ss.LoadState(ctx, runID, pausePath); err == nil && asked {
		_, _ = ss.SwapState(ctx, runID, pausePath, raw, nil)
	}
}

// Waiting is a run that waits, as [ListWaiting] lists it.
type indexEntry struct {
	Questions []human.Question `json:"questions"`
	Until     time.Time        `json:"until"` // when the run's checkpoint expires unless it is saved again
}

// index lists run runID among the waiting runs.
func index(ctx context.Context, store memory.Store, runID string, q human.Question, ttl time.Duration) error {
	if ttl <= 0 {
		ttl = memory.DefaultCheckpointTTL
	}
	raw, err := json.Marshal(indexEntry{Questions: []human.Question{q}, Until: time.Now().Add(ttl).UTC()})
	if err != nil {
		return err
	}
	return store.SaveCheckpoint(ctx, waitingIndex, memory.Checkpoint{Digest: waitingIndex, State: map[string][]byte{runID: raw}, TTL: ttl})
}

// unindex drops run runID from the waiting runs.
func unindex(ctx context.Context, store memory.Store, runID string) error {
	if ss, ok := store.(memory.States); ok {
		raw, ok, err := ss.LoadState(ctx, waitingIndex, runID)
		if err != nil || !ok {
			return err
		}
		_, err = ss.SwapState(ctx, waitingIndex, runID, raw, nil)
		return err
	}
	return store.SaveCheckpoint(ctx, waitingIndex, memory.Checkpoint{Digest: waitingIndex, State: map[string][]byte{runID: []byte("null")}})
}

// ListWaiting lists the questions of the runs in store that wait for an
// answer, oldest first. A question's Expires says when it stops taking
// answers; a run's checkpoint (and so its wait) expires with the checkpoint
// TTL, which [human.Question.Expires] shows when it comes first.
func ListWaiting(ctx context.Context, store memory.Store) ([]human.Question, error) {
	cp, ok, err := store.LoadCheckpoint(ctx, waitingIndex)
	if err != nil || !ok {
		return nil, err
	}
	now := time.Now()
	var out []human.Question
	for _, raw := range cp.State {
		var e indexEntry
		if json.Unmarshal(raw, &e) != nil || !now.Before(e.Until) {
			continue
		}
		for _, q := range e.Questions {
			if q.Expires.IsZero() || e.Until.Before(q.Expires) {
				q.Expires = e.Until
			}
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(a, b human.Question) int {
		if c := a.AskedAt.Compare(b.AskedAt); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return out, nil
}

// interrupted sets r's status from the interrupt that stopped the run, lists
// a waiting run among the waiting ones, and returns the error Run returns.
func (r *Result) interrupted(ctx context.Context, it *fault.Interrupt, err error, o runOptions) error {
	r.Status = it.Status
	if it.Status == StatusPaused {
		// The request is served: the continued run goes on until asked again.
		clearPause(context.WithoutCancel(ctx), o.store, r.RunID)
	}
	if q, ok := it.Question.(*human.Question); ok && it.Status == StatusWaiting {
		r.Waiting = q
		if ierr := index(context.WithoutCancel(ctx), o.store, r.RunID, *q, o.cpTTL); ierr != nil {
			return fmt.Errorf("run %q waits, but it could not be listed among the waiting runs: %w", r.RunID, ierr)
		}
	}
	return fmt.Errorf("run %q is %s: %w", r.RunID, it.Status, err)
}

// waitingFor is the run.end event's account of the question, nil for none.
func waitingFor(q *human.Question) any {
	if q == nil {
		return nil
	}
	m := map[string]any{"agent": q.Agent, "path": q.Path, "kind": q.Kind, "question": q.Text}
	if len(q.Options) > 0 {
		m["options"] = q.Options
	}
	if !q.Expires.IsZero() {
		m["expires"] = q.Expires.UTC().Format(time.RFC3339)
	}
	return m
}
