package retry_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
)

// flaky fails its first n runs with err, then answers "ok"; every run reports
// 10 prompt tokens.
type flaky struct {
	n, runs int
	err     error
}

func (f *flaky) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	f.runs++
	out := agents.Output{Usage: spend.Usage{PromptTokens: 10}}
	if f.runs <= f.n {
		return out, f.err
	}
	out.Response = "ok"
	return out, nil
}

func TestWithRetryRetriesAnAgentAndReportsAttempts(t *testing.T) {
	ev := &agenttest.Recorder{}
	in := agents.Input{Path: "wf › fetch", Run: &agents.Run{ID: "r", Observe: ev.Observe}}
	sl := &fakeSleep{}
	p := retry.DefaultAgent()
	p.Jitter = retry.JitterNone
	a := &flaky{n: 2, err: errors.New("flaky backend")}
	w := retry.Wrap(a, retry.Retrier{Policy: p, Sleep: sl.Sleep}, "fetch")

	out, err := w.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "ok", out.Response)
	assert.Equal(t, 3, a.runs, "two failures, then the third attempt succeeds")
	assert.Equal(t, 30, out.Usage.PromptTokens, "usage sums every attempt")
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, sl.Waits(), "exponential from 1s")

	got := ev.Events()
	require.Len(t, got, 2, "one event per retry")
	for i, e := range got {
		assert.Equal(t, event.AgentRetry, e.Kind)
		assert.Equal(t, "fetch", e.Agent)
		assert.Equal(t, "wf › fetch", e.Node)
		assert.Equal(t, i+1, e.Attempt, "the attempt that failed")
		assert.Equal(t, i+2, e.Data["next_attempt"])
		assert.Equal(t, 4, e.Data["max_attempts"])
		assert.Equal(t, sl.Waits()[i].Milliseconds(), e.Data["wait_ms"])
		assert.Equal(t, "error", e.Data["class"])
		assert.Equal(t, "flaky backend", e.Error)
	}
}

func TestWithRetryGivesUpAfterCount(t *testing.T) {
	sl := &fakeSleep{}
	p := retry.Policy{Type: retry.Fixed, Count: 2, Interval: time.Second, On: []retry.Class{retry.ClassError}}
	a := &flaky{n: 100, err: errors.New("down")}
	out, err := retry.Wrap(a, retry.Retrier{Policy: p, Sleep: sl.Sleep}, "x").Run(context.Background(), agents.Input{})
	require.Error(t, err)
	assert.Equal(t, 3, a.runs, "1 attempt + count 2")
	assert.Contains(t, err.Error(), "gave up after 3 attempts: down")
	assert.Equal(t, 30, out.Usage.PromptTokens, "a failed output keeps the usage of every attempt")
	assert.Equal(t, []time.Duration{time.Second, time.Second}, sl.Waits(), "fixed interval")
}

func TestWithRetryOnFilter(t *testing.T) {
	timeout := &retry.CallError{Class: retry.ClassTimeout, Err: errors.New("took too long")}
	plain := errors.New("plain failure")
	for _, tc := range []struct {
		name string
		on   []retry.Class
		err  error
		runs int
	}{
		{"error covers a plain failure", []retry.Class{retry.ClassError}, plain, 4},
		{"error covers timeouts too", []retry.Class{retry.ClassError}, timeout, 4},
		{"timeout only: a plain failure is not retried", []retry.Class{retry.ClassTimeout}, plain, 1},
		{"timeout only: a timeout is", []retry.Class{retry.ClassTimeout}, timeout, 4},
		{"rate_limit only: a timeout is not", []retry.Class{retry.ClassRateLimit}, timeout, 1},
		{"permanent failures never", []retry.Class{retry.ClassError}, retry.Permanent(plain), 1},
		{"nor budget refusals", []retry.Class{retry.ClassError}, spend.ErrBudgetExceeded, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := retry.DefaultAgent()
			p.On = tc.on
			a := &flaky{n: 100, err: tc.err}
			_, err := retry.Wrap(a, retry.Retrier{Policy: p, Sleep: (&fakeSleep{}).Sleep}, "x").Run(context.Background(), agents.Input{})
			require.ErrorIs(t, err, tc.err)
			assert.Equal(t, tc.runs, a.runs)
		})
	}
}

// TestWithRetryFullJitterBounds: with full jitter each wait is rand × backoff,
// in [0, backoff): the fake source's extremes give 0 and just under the backoff.
func TestWithRetryFullJitterBounds(t *testing.T) {
	p := retry.DefaultAgent()
	p.Count = 5
	p.MaxInterval = 10 * time.Second
	backoffs := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second}
	for _, tc := range []struct {
		name string
		rnd  float64
		want func(b time.Duration) time.Duration
	}{
		{"lowest draw waits nothing", 0, func(time.Duration) time.Duration { return 0 }},
		{"middle draw waits half", 0.5, func(b time.Duration) time.Duration { return b / 2 }},
		{"highest draw stays under the backoff", math.Nextafter(1, 0), func(b time.Duration) time.Duration {
			return time.Duration(math.Nextafter(1, 0) * float64(b))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &fakeSleep{}
			r := retry.Retrier{Policy: p, Sleep: sl.Sleep, Rand: func() float64 { return tc.rnd }}
			_, err := retry.Wrap(&flaky{n: 100, err: errors.New("x")}, r, "x").Run(context.Background(), agents.Input{})
			require.Error(t, err)
			waits := sl.Waits()
			require.Len(t, waits, 5)
			for i, w := range waits {
				assert.Equal(t, tc.want(backoffs[i]), w, "retry %d", i+1)
				assert.GreaterOrEqual(t, w, time.Duration(0))
				assert.Less(t, w, backoffs[i])
			}
		})
	}
}

// director is a router-like agent: the step "next" runs after it.
type director struct{ agents.Func }

func (director) Next(agents.Output) []agents.Step {
	return []agents.Step{{ID: "next", Agent: agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
		return agents.Output{Response: "N"}, nil
	})}}
}

// TestWrappedAgentStillDirects: a retried router's step routes, its abilities
// read through Unwrap when the step is made.
func TestWrappedAgentStillDirects(t *testing.T) {
	d := director{agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{Response: "R"}, nil })}
	w := retry.Wrap(d, retry.Retrier{Policy: retry.DefaultAgent()}, "d")
	out, err := agents.Sequence{Steps: []agents.Step{agents.NewStep("d", "router", w)}}.Run(context.Background(), agents.Input{})
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "next"}, out.Children.IDs())
}

func TestDefaultAgentRetry(t *testing.T) {
	p := retry.DefaultAgent()
	require.NoError(t, p.Validate())
	assert.Equal(t, retry.Exponential, p.Type)
	assert.Equal(t, 3, p.Count)
	assert.Equal(t, time.Second, p.Interval)
	assert.Equal(t, time.Minute, p.MaxInterval)
	assert.Equal(t, retry.JitterFull, p.Jitter)
	assert.True(t, p.Retries(retry.ClassError))
	assert.True(t, p.Retries(retry.ClassTimeout))
	assert.False(t, p.Retries(retry.ClassPermanent))
}
