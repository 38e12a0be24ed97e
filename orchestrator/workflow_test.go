package orchestrator

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, src string) *Workflow {
	t.Helper()
	w, _, err := parse(t, src)
	require.NoError(t, err)
	return w
}

func TestFailingAgentBecomesErrorRecordAndRunGoesOn(t *testing.T) {
	w := mustParse(t, `orchestrator: {id: w, agents: [a, boom, crash, b]}
agents:
  - {id: a, type: const, response: first}
  - {id: boom, type: fail, message: model said no}
  - {id: crash, type: panic, message: kaboom}
  - {id: b, type: const, response: last}
`)
	rec := &agenttest.Recorder{}
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r1", Observe: rec.Observe}})
	require.NoError(t, err)
	assert.Equal(t, "last", out.Response)
	assert.Equal(t, []string{"a", "boom", "crash", "b"}, out.Children.IDs())

	boom, _ := out.Children.Get("boom")
	require.True(t, boom.Failed())
	assert.Equal(t, "boom: model said no", boom.Err)
	assert.Equal(t, map[string]any{"result": nil, "status": "error", "error": "boom: model said no"}, boom.Map())

	crash, _ := out.Children.Get("crash")
	require.True(t, crash.Failed())
	assert.Contains(t, crash.Err, "panic: kaboom")
	assert.Contains(t, crash.Err, "goroutine", "a panic keeps its stack")

	kinds := rec.Kinds()
	assert.Equal(t, []string{"agent.start", "agent.end", "agent.start", "agent.end", "agent.start", "agent.end", "agent.start", "agent.end"}, kinds)
	ev := rec.Events()[3]
	assert.Equal(t, "boom", ev.Agent)
	assert.Equal(t, "r1", ev.Run)
	assert.Equal(t, "boom: model said no", ev.Error)
}

func TestResponseIsLastSuccessfulAgent(t *testing.T) {
	w := mustParse(t, `orchestrator: {id: w, agents: [a, boom]}
agents:
  - {id: a, type: const, response: {answer: 42}}
  - {id: boom, type: fail}
`)
	out, err := w.Run(context.Background(), agents.Input{Value: "x"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"answer": 42}, out.Response)
}

func TestCancellationStopsTheRun(t *testing.T) {
	w := mustParse(t, `orchestrator: {id: w, agents: [a, wait, b]}
agents:
  - {id: a, type: const, response: one}
  - {id: wait, type: block}
  - {id: b, type: const, response: never}
`)
	ctx, cancel := context.WithCancel(context.Background())
	rec := &agenttest.Recorder{}
	run := &agents.Run{Observe: func(e event.Event) {
		rec.Observe(e)
		if e.Kind == event.AgentStart && e.Agent == "wait" {
			cancel()
		}
	}}
	out, err := w.Run(ctx, agents.Input{Value: "x", Run: run})
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "wait")
	assert.Equal(t, []string{"a"}, out.Children.IDs())
	for _, e := range rec.Events() {
		assert.NotEqual(t, "b", e.Agent, "no agent starts after cancellation")
	}
}

func TestNestedPathInEvents(t *testing.T) {
	w := mustParse(t, `orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: fail, message: bad}
`)
	rec := &agenttest.Recorder{}
	out, err := w.Run(context.Background(), agents.Input{Path: "outer" + fault.PathSep + "iteration 2", Run: &agents.Run{Observe: rec.Observe}})
	require.NoError(t, err)
	a, _ := out.Children.Get("a")
	assert.Equal(t, "outer › iteration 2 › a: bad", a.Err)
	assert.Equal(t, "outer › iteration 2 › a", rec.Events()[0].Node)
}
