package cogloop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
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
	stopAt3 := func(e agents.Event) {
		if e.Kind == agents.EventAgentStart && e.Node == "l › iteration 3 › w" {
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
