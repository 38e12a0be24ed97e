package cogloop_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
)

const twoStepWorkflow = `orchestrator: {id: two, agents: [a, b]}
agents:
  - {id: a, type: openai-answer, model: m, prompt: "a"}
  - {id: b, type: openai-answer, model: m, prompt: "b"}
`

func twoStepScript(t *testing.T) cogloop.RunOption {
	return cogloop.WithModels(agenttest.Script(t, "a: [A]\nb: [B]\n"))
}

// Observers compose: a second WithObserver does not replace the first.
func TestObserversCompose(t *testing.T) {
	wf, err := cogloop.Parse([]byte(twoStepWorkflow), "two.yaml")
	require.NoError(t, err)
	first, second := &agenttest.Recorder{}, &agenttest.Recorder{}
	_, err = wf.Run(context.Background(), "x", twoStepScript(t),
		cogloop.WithObserver(first.Observe), cogloop.WithObserver(nil), cogloop.WithObserver(second.Observe))
	require.NoError(t, err)
	require.NotEmpty(t, first.Kinds())
	assert.Equal(t, first.Kinds(), second.Kinds())
	assert.Equal(t, event.RunStart, first.Kinds()[0])
	assert.Equal(t, event.RunEnd, first.Kinds()[len(first.Kinds())-1])
}

// Events yields the run's events in order, the same an observer sees, and
// result returns the run's Result.
func TestEventsYieldsTheRunsEvents(t *testing.T) {
	wf, err := cogloop.Parse([]byte(twoStepWorkflow), "two.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	events, result := wf.Events(context.Background(), "x", twoStepScript(t), cogloop.WithObserver(rec.Observe))
	var kinds []string
	for e := range events {
		kinds = append(kinds, e.Kind)
	}
	res, err := result()
	require.NoError(t, err)
	assert.Equal(t, "B", res.Text())
	assert.Equal(t, rec.Kinds(), kinds)
	assert.Equal(t, []string{event.RunStart, event.AgentStart, event.AgentEnd, event.AgentStart, event.AgentEnd, event.RunEnd}, kinds)
}

// Stopping the loop early cancels the run; result reports it, and the run
// has ended when result returns.
func TestEventsStopEarlyCancelsTheRun(t *testing.T) {
	wf, err := cogloop.Parse([]byte(twoStepWorkflow), "two.yaml")
	require.NoError(t, err)
	var mu sync.Mutex
	var after []string
	events, result := wf.Events(context.Background(), "x", twoStepScript(t), cogloop.WithObserver(func(e event.Event) {
		mu.Lock()
		after = append(after, e.Kind)
		mu.Unlock()
	}))
	for e := range events {
		require.Equal(t, event.RunStart, e.Kind)
		break
	}
	res, err := result()
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, cogloop.StatusFailed, res.Status)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, event.RunEnd, after[len(after)-1], "the run ended before result returned")
	assert.NotContains(t, res.Outputs.IDs(), "b", "b never ran")
}
