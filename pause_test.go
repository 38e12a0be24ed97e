package cogloop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
)

const pauseWF = `orchestrator: {id: long, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 4
    score_threshold: 0.99
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "pass {{ loop_number }} after {{ get_past_loops() | length }}"}
`

// A pause asked during pass 2 stops the run at the boundary after it with
// status paused; the resume runs passes 3 and 4 only, and the result is
// the uninterrupted run's.
func TestPauseAtPassBoundary(t *testing.T) {
	ctx := context.Background()
	wf, err := cogloop.Parse([]byte(pauseWF), "pause.yaml")
	require.NoError(t, err)
	ref, err := wf.Run(ctx, "x", cogloop.WithModels(&calls{}))
	require.NoError(t, err)

	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &calls{}
	var paused []event.Event
	observe := func(e event.Event) {
		if e.Kind == event.LoopPassStart && e.Data["loop_number"] == 2 {
			require.NoError(t, cogloop.RequestPause(ctx, store, "p"))
		}
		if e.Kind == event.RunPause {
			paused = append(paused, e)
		}
	}
	res, err := wf.Run(ctx, "x", cogloop.WithRunID("p"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(models), cogloop.WithObserver(observe))
	require.Error(t, err)
	it := fault.AsInterrupt(err)
	require.NotNil(t, it, "%v", err)
	assert.Equal(t, cogloop.StatusPaused, res.Status)
	assert.Equal(t, "l", it.Path)
	require.Len(t, paused, 1)
	assert.Equal(t, 2, paused[0].Data["after_pass"])
	assert.Len(t, models.n, 2)

	res, err = wf.Run(ctx, "x", cogloop.WithResume("p", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	assert.Len(t, models.n, 4)
	assert.Empty(t, models.repeated())
	assert.Equal(t, ref.Text(), res.Text())

	require.ErrorIs(t, cogloop.RequestPause(ctx, store, "p"), cogloop.ErrNotRunning, "a finished run")
	require.ErrorIs(t, cogloop.RequestPause(ctx, store, "none"), cogloop.ErrNotRunning)
}

const forkWaitWF = `orchestrator: {id: branches, agents: [f, j, after]}
agents:
  - id: f
    type: fork
    mode: parallel
    targets: [[a, a2], [h]]
  - {id: a, type: openai-answer, model: m, prompt: "branch a"}
  - {id: a2, type: openai-answer, model: m, prompt: "branch a2"}
  - {id: h, type: human, kind: text, prompt: "say something"}
  - {id: j, type: join, group: f}
  - {id: after, type: openai-answer, model: m, prompt: "after {{ previous_outputs.a2.response }} {{ previous_outputs.h.text }}"}
`

// A human step in one parallel branch: the other branch finishes, the run
// waits, and the continued run takes the finished branch's outputs instead
// of calling its model again.
func TestWaitInParallelBranch(t *testing.T) {
	ctx := context.Background()
	wf, err := cogloop.Parse([]byte(forkWaitWF), "fork.yaml")
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &calls{}
	res, err := wf.Run(ctx, "x", cogloop.WithRunID("f"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.Error(t, err)
	require.Equal(t, cogloop.StatusWaiting, res.Status, "%v", err)
	assert.Equal(t, "f › h", res.Waiting.Path)
	assert.Len(t, models.n, 2)

	require.NoError(t, cogloop.Answer(ctx, store, "f", human.Answer{Kind: human.KindText, Text: "hello"}))
	res, err = wf.Run(ctx, "x", cogloop.WithResume("f", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	assert.Equal(t, "reply to after reply to branch a2 hello", res.Text())
	assert.Empty(t, models.repeated())
}
