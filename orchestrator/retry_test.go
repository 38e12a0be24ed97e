package orchestrator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/types/llm"
)

// sleeps records the retry waits asked for, without waiting.
type sleeps struct{ waits []time.Duration }

func (s *sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.waits = append(s.waits, d)
	return ctx.Err()
}

// retryRegistry has the agenttest types, the LLM types, and flaky: fails its
// first `failures` runs of each run with message, then answers "recovered".
func retryRegistry(t *testing.T, runs *atomic.Int64) *agents.Registry {
	t.Helper()
	r := agenttest.Registry()
	llm.RegisterWith(r, llm.Options{Getenv: func(string) string { return "" }, Sleep: (&sleeps{}).Sleep})
	r.MustRegister("flaky", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		failures := c.Int("failures", 1, 0, 100)
		msg := c.String("message", "flaky failure")
		var key int
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			runs.Add(1)
			n := in.Run.Local(&key, func() any { return new(atomic.Int64) }).(*atomic.Int64)
			if n.Add(1) <= int64(failures) {
				return agents.Output{}, errors.New(msg)
			}
			return agents.Output{Response: "recovered"}, nil
		}), nil
	})
	return r
}

func TestRetryOnAnyAgent(t *testing.T) {
	var runs atomic.Int64
	sl := &sleeps{}
	w, _, err := Parse([]byte(`orchestrator: {id: w, agents: [fetch, once, never]}
agents:
  - id: fetch
    type: flaky
    failures: 2
    retry: {type: fixed, count: 3, interval: 2s, jitter: none}
  - {id: once, type: flaky, failures: 1}
  - id: never
    type: flaky
    failures: 1
    retry: {count: 3, on: [timeout, rate_limit]}
`), "wf.yaml", retryRegistry(t, &runs), WithRetrier(retry.Retrier{Sleep: sl.Sleep}))
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r", Observe: rec.Observe}})
	require.NoError(t, err)

	fetch, _ := out.Children.Get("fetch")
	assert.Equal(t, "recovered", fetch.Response, "two failures, then success on the third attempt")
	once, _ := out.Children.Get("once")
	assert.True(t, once.Failed(), "no retry: without retry:, an agent runs once")
	never, _ := out.Children.Get("never")
	assert.True(t, never.Failed(), "on: [timeout, rate_limit] does not cover a plain failure")
	assert.Equal(t, int64(3+1+1), runs.Load())
	assert.Equal(t, []time.Duration{2 * time.Second, 2 * time.Second}, sl.waits)

	var retries []event.Event
	for _, e := range rec.Events() {
		if e.Kind == event.AgentRetry {
			retries = append(retries, e)
		}
	}
	require.Len(t, retries, 2)
	for i, e := range retries {
		assert.Equal(t, "fetch", e.Agent)
		assert.Equal(t, "fetch", e.Node)
		assert.Equal(t, i+1, e.Attempt)
		assert.Equal(t, int64(2000), e.Data["wait_ms"])
		assert.Equal(t, "flaky failure", e.Error)
	}
	assert.Equal(t, []string{"agent.start", "agent.retry", "agent.retry", "agent.end"}, rec.Kinds()[:4],
		"retries happen inside one step")
}

// TestLLMAgentsAreNotRetriedTwice: an LLM agent reads retry: itself and retries
// around its model call; the builder must not wrap it again (3 attempts, not 9).
func TestLLMAgentsAreNotRetriedTwice(t *testing.T) {
	var runs atomic.Int64
	w, _, err := Parse([]byte(`orchestrator: {id: w, agents: [writer]}
agents:
  - id: writer
    type: llm
    provider: ollama
    model: m
    prompt: p
    retry: {type: fixed, count: 2, interval: 1ms}
`), "wf.yaml", retryRegistry(t, &runs))
	require.NoError(t, err)
	script, err := scripted.Parse([]byte(`writer: [{error: busy, status: 503}, {error: busy, status: 503}, {error: busy, status: 503}, fine]`), "s.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r", Observe: rec.Observe, Models: script}})
	require.NoError(t, err)
	writer, _ := out.Children.Get("writer")
	require.True(t, writer.Failed())
	assert.Contains(t, writer.Err, "gave up after 3 attempts")
	m, _ := script.ModelFor("writer")
	assert.Equal(t, 3, m.(*scripted.Model).Calls())
}

func TestRetryProblemsHavePositions(t *testing.T) {
	var runs atomic.Int64
	_, _, err := Parse([]byte(`orchestrator: {id: w, agents: [a, b, c, d]}
agents:
  - {id: a, type: flaky, retry: {interval: -1s}}
  - {id: b, type: flaky, retry: {interval: soon}}
  - {id: c, type: flaky, retry: {count: 2, on: [oops]}}
  - {id: d, type: llm, provider: ollama, model: m, prompt: p, retry: {max_interval: -2}}
`), "wf.yaml", retryRegistry(t, &runs))
	require.Error(t, err)
	for _, want := range []string{
		`wf.yaml:3:34: agent "a": retry: interval: duration "-1s" is negative`,
		`wf.yaml:4:34: agent "b": retry: interval: cannot read "soon" as a duration`,
		`wf.yaml:5:49: agent "c": retry: on: "oops" is not an error class`,
		`wf.yaml:6:71: agent "d": retry: max_interval: duration "-2" is negative`,
	} {
		assert.Contains(t, err.Error(), want)
	}
}
