package retry_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
)

// Issue 17 item 8: on: takes HTTP statuses, minimum_interval floors every
// wait, jitter takes a fraction.
func TestReadRetryPolicyStatusesFloorAndFraction(t *testing.T) {
	p, probs := readPolicy(t, `
retry:
  type: fixed
  count: 2
  interval: 1s
  minimum_interval: 900ms
  max_interval: 2s
  jitter: 0.1
  on: [429, 503, timeout]
`)
	require.NoError(t, probs.Err())
	assert.Equal(t, retry.JitterFraction, p.Jitter)
	assert.InDelta(t, 0.1, p.JitterFraction, 1e-9)
	assert.Equal(t, 900*time.Millisecond, p.MinInterval)
	assert.Equal(t, []int{429, 503}, p.OnStatus)
	assert.Equal(t, []retry.Class{retry.ClassTimeout}, p.On)
	require.NoError(t, p.Validate())
}

func TestReadRetryPolicyDetailProblems(t *testing.T) {
	_, probs := readPolicy(t, `retry:
  jitter: 1.5
  on: [200, 503, teapot]
  minimum_interval: 5s
  max_interval: 1s
  interval: 1s
`)
	err := probs.Err()
	require.Error(t, err)
	for _, s := range []string{
		`wf.yaml:2:3:`, `jitter 1.5 is out of range`,
		`wf.yaml:3:8: agent "a": retry: on: 200 is not an HTTP error status (400-599)`,
		`wf.yaml:3:18:`, `"teapot" is not an error class or HTTP status`,
		`wf.yaml:4:3:`, `minimum_interval 5s is longer than max_interval 1s`,
	} {
		assert.Contains(t, err.Error(), s)
	}
}

func TestDoRetriesListedStatusesOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		attempts int
	}{
		{"listed 503 is retried", 503, 3},
		{"listed 404 is retried although 4xx is permanent", 404, 3},
		{"unlisted 500 is not retried", 500, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &fakeSleep{}
			r := retry.Retrier{Policy: retry.Policy{Type: retry.Fixed, Count: 2, Interval: 10 * time.Millisecond,
				Jitter: retry.JitterNone, OnStatus: []int{404, 503}}, Sleep: sl.Sleep}
			calls := 0
			err := r.Do(context.Background(), agents.Input{}, "a", func(context.Context, int) error {
				calls++
				return &retry.CallError{Status: tc.status}
			})
			require.Error(t, err)
			assert.Equal(t, tc.attempts, calls)
		})
	}
	t.Run("fatal is never retried", func(t *testing.T) {
		r := retry.Retrier{Policy: retry.Policy{Type: retry.Fixed, Count: 2, OnStatus: []int{503}}, Sleep: (&fakeSleep{}).Sleep}
		calls := 0
		_ = r.Do(context.Background(), agents.Input{}, "a", func(context.Context, int) error {
			calls++
			return fault.Fatal(&retry.CallError{Status: 503}, "fix the thing")
		})
		assert.Equal(t, 1, calls)
	})
}

func TestFractionJitterAndMinimumInterval(t *testing.T) {
	for _, tc := range []struct {
		rnd  float64
		want time.Duration
	}{
		{0, 900 * time.Millisecond},     // -10 %
		{0.5, time.Second},              // the interval
		{0.75, 1050 * time.Millisecond}, // +5 %
	} {
		sl := &fakeSleep{}
		r := retry.Retrier{Policy: retry.Policy{Type: retry.Fixed, Count: 1, Interval: time.Second,
			Jitter: retry.JitterFraction, JitterFraction: 0.1, On: []retry.Class{retry.ClassError}},
			Sleep: sl.Sleep, Rand: func() float64 { return tc.rnd }}
		_ = r.Do(context.Background(), agents.Input{}, "a", func(context.Context, int) error { return &retry.CallError{Status: 500} })
		require.Len(t, sl.Waits(), 1)
		assert.Equal(t, tc.want, sl.Waits()[0], "rand %v", tc.rnd)
	}

	sl := &fakeSleep{}
	r := retry.Retrier{Policy: retry.Policy{Type: retry.Fixed, Count: 1, Interval: 100 * time.Millisecond,
		MinInterval: 400 * time.Millisecond, Jitter: retry.JitterFull, On: []retry.Class{retry.ClassError}},
		Sleep: sl.Sleep, Rand: func() float64 { return 0.1 }}
	_ = r.Do(context.Background(), agents.Input{}, "a", func(context.Context, int) error { return &retry.CallError{Status: 500} })
	assert.Equal(t, []time.Duration{400 * time.Millisecond}, sl.Waits(), "minimum_interval floors the jittered wait")
}
