package cogloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const resumeWF = `orchestrator: {id: resumable, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.99
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "pass {{ loop_number }} after {{ get_past_loops() | length }}"}
`

// countingModels answers "SCORE: 0.N" for pass N and counts calls by pass.
type countingModels struct{ calls map[string]int }

func (c *countingModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		if err := ctx.Err(); err != nil {
			return agents.Reply{}, err
		}
		c.calls[req.Prompt]++
		return agents.Reply{Text: "SCORE: 0." + req.Prompt[5:6]}, nil
	}), nil
}

// Inside one process, with the in-memory store: a run canceled during
// iteration 3 resumes from its checkpoint and never calls the model again for
// iterations 1–2.
func TestResumeInProcess(t *testing.T) {
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(resumeWF), "resume.yaml")
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	models := &countingModels{calls: map[string]int{}}
	stopAt3 := func(e event.Event) {
		if e.Kind == event.AgentStart && e.Node == "l › iteration 3 › w" {
			cancel()
		}
	}
	_, err = wf.Run(ctx, "x", cogloop.WithRunID("r1"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(models), cogloop.WithObserver(stopAt3))
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, map[string]int{"pass 1 after 0": 1, "pass 2 after 1": 1}, models.calls)

	res, err := wf.Run(context.Background(), "x", cogloop.WithResume("r1", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"pass 1 after 0": 1, "pass 2 after 1": 1, "pass 3 after 2": 1, "pass 4 after 3": 1, "pass 5 after 4": 1}, models.calls)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, 5, loop.Fields["loops_completed"])
	var numbers []any
	for _, p := range loop.Fields["past_loops"].([]any) {
		numbers = append(numbers, p.(map[string]any)["loop_number"])
	}
	assert.Equal(t, []any{1, 2, 3, 4, 5}, numbers)
	assert.Equal(t, 0.2, loop.Fields["past_loops"].([]any)[1].(map[string]any)["score"])

	_, err = wf.Run(context.Background(), "x", cogloop.WithResume("nope", false), cogloop.WithMemory(store))
	assert.True(t, errors.Is(err, cogloop.ErrNoCheckpoint), err)

	other, err := cogloop.Parse([]byte(resumeWF+"\n# changed\n"), "resume.yaml")
	require.NoError(t, err)
	_, err = other.Run(context.Background(), "x", cogloop.WithResume("r1", false), cogloop.WithMemory(store))
	assert.True(t, errors.Is(err, cogloop.ErrWorkflowChanged), err)
}

const budgetResumeWF = `orchestrator: {id: budgeted, agents: [l], budget: {max_tokens: 1000}}
agents:
  - id: l
    type: loop
    max_loops: 50
    score_threshold: 0.99
    budget: {max_tokens: 900}
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, max_tokens: 50, prompt: "pass {{ loop_number }}"}
`

// spendingModels spends 55 tokens a call (within the call's worst case, so the
// budget can hold exactly) and counts every token spent across runs; call
// number killAt spends its tokens and then "kills" the run: its reply is lost
// and the process writes nothing more.
type spendingModels struct {
	spent, calls, killAt int
	kill                 context.CancelFunc
	store                *dyingStore
}

// dyingStore refuses every write once dead, as a killed process writes none.
type dyingStore struct {
	memory.Store
	dead bool
}

var errDead = errors.New("the process was killed")

func (s *dyingStore) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	if s.dead {
		return errDead
	}
	return s.Store.SaveCheckpoint(ctx, runID, cp)
}

func (s *dyingStore) Append(ctx context.Context, loopID string, e memory.Entry) error {
	if s.dead {
		return errDead
	}
	return s.Store.Append(ctx, loopID, e)
}

func (m *spendingModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		m.calls++
		m.spent += 55
		if m.calls == m.killAt {
			m.store.dead = true
			m.kill()
			return agents.Reply{}, context.Canceled
		}
		return agents.Reply{Text: "SCORE: 0.1", Usage: spend.Usage{PromptTokens: 5, CompletionTokens: 50}}, nil
	}), nil
}

// A 1,000-token budget holds across a kill and a resume: the resumed run goes
// on from what the dead one committed (the call in flight at its worst case),
// per scope, so the tokens spent by both runs together stay within budget.
func TestBudgetSurvivesResume(t *testing.T) {
	for _, scope := range []struct {
		name, src string
		limit     int
	}{
		{"loop", budgetResumeWF, 900},
		{"workflow", strings.Replace(budgetResumeWF, "    budget: {max_tokens: 900}\n", "", 1), 1000},
	} {
		for _, killAt := range []int{1, 3, 7, 16} {
			t.Run(fmt.Sprintf("%s/kill_in_call_%d", scope.name, killAt), func(t *testing.T) {
				testBudgetResume(t, scope.src, scope.limit, killAt)
			})
		}
	}
}

func testBudgetResume(t *testing.T, src string, limit, killAt int) {
	mem, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	store := &dyingStore{Store: mem}
	wf, err := cogloop.Parse([]byte(src), "budget.yaml")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	models := &spendingModels{killAt: killAt, kill: cancel, store: store}
	_, err = wf.Run(ctx, "x", cogloop.WithRunID("b"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.ErrorIs(t, err, context.Canceled)
	store.dead = false

	res, err := wf.Run(context.Background(), "x", cogloop.WithResume("b", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, "budget", loop.Fields["stop_reason"])
	assert.True(t, res.BudgetExceeded)
	assert.LessOrEqual(t, models.spent, limit, "the budget across both runs")
	// The lost call counts at its worst case (56), so at most one call fewer
	// fits than without the kill.
	assert.GreaterOrEqual(t, models.spent, limit-2*56, "the resumed run spends what is left")
}

// Without a kill the same workflow spends its loop budget the same way.
func TestBudgetWithoutKill(t *testing.T) {
	wf, err := cogloop.Parse([]byte(budgetResumeWF), "budget.yaml")
	require.NoError(t, err)
	models := &spendingModels{killAt: -1}
	res, err := wf.Run(context.Background(), "x", cogloop.WithRunID("b"), cogloop.WithCheckpoints(), cogloop.WithModels(models))
	require.NoError(t, err)
	assert.LessOrEqual(t, models.spent, 900)
	assert.Equal(t, models.spent, res.Usage.Total())
}

const persistedWF = `orchestrator: {id: persisted, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 4
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "pass {{ loop_number }}"}
`

// flakyStore fails the history append of one iteration (failAppend), or
// dies (refuses every later write) right after that append lands (dieAfter).
type flakyStore struct {
	dyingStore
	failAppend, dieAfter int
}

func (s *flakyStore) Append(ctx context.Context, loopID string, e memory.Entry) error {
	if e.Iteration == s.failAppend {
		s.failAppend = 0
		return errors.New("connection reset")
	}
	err := s.dyingStore.Append(ctx, loopID, e)
	if e.Iteration == s.dieAfter {
		s.dead = true
	}
	return err
}

// passModels answers "SCORE: <scores[call]>" and counts calls by prompt.
type passModels struct {
	scores []string
	calls  map[string]int
	n      int
}

func (m *passModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		m.calls[req.Prompt]++
		m.n++
		return agents.Reply{Text: "SCORE: " + m.scores[m.n-1]}, nil
	}), nil
}

// A pass whose history append failed is not completed: the run fails, and
// --resume runs that pass again instead of finding nothing to do.
func TestStoreFailureLeavesThePassToResume(t *testing.T) {
	wf, store := persistedOnFlaky(t, 3, 0)
	models := &passModels{scores: []string{"0.1", "0.2", "0.3", "0.31", "0.4"}, calls: map[string]int{}}
	res, err := wf.Run(context.Background(), "x", cogloop.WithRunID("f"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models))
	if err == nil {
		loop, _ := res.Outputs.Get("l")
		require.Equal(t, "error", loop.Fields["stop_reason"])
		assert.Contains(t, loop.Fields["error"], "iteration 3 was not persisted")
	}

	res, err = wf.Run(context.Background(), "x", cogloop.WithResume("f", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, 4, loop.Fields["loops_completed"])
	assert.Equal(t, "max_loops", loop.Fields["stop_reason"])
	assert.Equal(t, map[string]int{"pass 1": 1, "pass 2": 1, "pass 3": 2, "pass 4": 1}, models.calls)
	assertHistory(t, store, []string{"0.1", "0.2", "0.31", "0.4"})
}

// A kill between the history append of pass 3 and its checkpoint: the resumed
// run redoes pass 3 and its entry replaces the discarded attempt's, so the
// history holds one entry per pass, the ones the run reports.
func TestRedoReplacesHistoryEntry(t *testing.T) {
	wf, store := persistedOnFlaky(t, 0, 3)
	models := &passModels{scores: []string{"0.1", "0.2", "0.6", "0.61", "0.7", "0.8"}, calls: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _ = wf.Run(ctx, "x", cogloop.WithRunID("k"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models),
		cogloop.WithObserver(func(e event.Event) {
			if store.dead {
				cancel()
			}
		}))
	store.dead = false
	store.dieAfter = 0

	res, err := wf.Run(context.Background(), "x", cogloop.WithResume("k", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	var reported []string
	for _, p := range loop.Fields["past_loops"].([]any) {
		reported = append(reported, fmt.Sprint(p.(map[string]any)["score"]))
	}
	assert.Equal(t, []string{"0.1", "0.2", "0.61", "0.7"}, reported)
	assertHistory(t, store, reported)
}

// persistedOnFlaky parses persistedWF and an in-memory store that fails the
// history append of pass failAppend, or dies right after the append of pass
// dieAfter (0: never).
func persistedOnFlaky(t *testing.T, failAppend, dieAfter int) (*cogloop.Workflow, *flakyStore) {
	t.Helper()
	mem, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(persistedWF), "p.yaml")
	require.NoError(t, err)
	return wf, &flakyStore{dyingStore: dyingStore{Store: mem}, failAppend: failAppend, dieAfter: dieAfter}
}

func assertHistory(t *testing.T, store memory.Store, scores []string) {
	t.Helper()
	hist, err := store.History(context.Background(), memory.HistoryID("persisted", "l"), 0)
	require.NoError(t, err)
	var got []string
	for i, e := range hist {
		assert.Equal(t, i+1, e.Iteration, "no gap and no duplicate")
		var m map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &m))
		got = append(got, fmt.Sprint(m["score"]))
	}
	assert.Equal(t, scores, got)
}

// A pass stopped by an error (here a fatal one, as a missing API key gives)
// is not completed: once the cause is fixed, --resume runs that pass again
// and finishes the run.
func TestFailedPassIsResumed(t *testing.T) {
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(persistedWF), "p.yaml")
	require.NoError(t, err)
	calls := 0
	broken := agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		calls++
		if calls == 3 {
			return agents.Reply{}, fault.Fatal(errors.New("401 unauthorized"), "set OPENAI_API_KEY")
		}
		return agents.Reply{Text: fmt.Sprintf("SCORE: 0.%d", calls)}, nil
	})
	res, err := wf.Run(context.Background(), "x", cogloop.WithRunID("e"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(modelSource{broken}))
	failed := err != nil
	if res != nil {
		if loop, ok := res.Outputs.Get("l"); ok && loop.Fields["stop_reason"] == "error" {
			failed = true
		}
	}
	require.True(t, failed, "pass 3 fails fatally: the run fails")

	fixed := agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		calls++
		return agents.Reply{Text: fmt.Sprintf("SCORE: 0.%d", calls-1)}, nil
	})
	res, err = wf.Run(context.Background(), "x", cogloop.WithResume("e", false), cogloop.WithMemory(store), cogloop.WithModels(modelSource{fixed}))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, 4, loop.Fields["loops_completed"])
	assert.Equal(t, "max_loops", loop.Fields["stop_reason"])
	assertHistory(t, store, []string{"0.1", "0.2", "0.3", "0.4"})
}

// modelSource answers every agent with one model.
type modelSource struct{ m agents.Model }

func (s modelSource) ModelFor(string) (agents.Model, error) { return s.m, nil }

// max_total_iterations counts the passes of both runs: a resumed run goes on
// from what its loops had completed.
func TestTotalIterationsSurviveResume(t *testing.T) {
	src := strings.Replace(strings.Replace(persistedWF, "max_loops: 4", "max_loops: 10", 1),
		"orchestrator: {id: persisted, agents: [l]}", "orchestrator: {id: persisted, agents: [l], max_total_iterations: 4}", 1)
	wf, err := cogloop.Parse([]byte(src), "total.yaml")
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &passModels{scores: []string{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}, calls: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = wf.Run(ctx, "x", cogloop.WithRunID("t"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models),
		cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.AgentStart && e.Node == "l › iteration 3 › w" {
				cancel()
			}
		}))
	require.ErrorIs(t, err, context.Canceled)

	res, err := wf.Run(context.Background(), "x", cogloop.WithResume("t", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, "max_total_iterations", loop.Fields["stop_reason"])
	assert.Equal(t, 4, loop.Fields["loops_completed"], "passes 1–2 before the kill and 3–4 after: four in all")
}
