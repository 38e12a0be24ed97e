package retry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
)

// fakeSleep records the backoff waits and returns at once.
type fakeSleep = agenttest.Sleeper

func TestBackoff(t *testing.T) {
	p := retry.Policy{Type: retry.Exponential, Count: 10, Interval: 500 * time.Millisecond, MaxInterval: 3 * time.Second}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second}
	for i, w := range want {
		assert.Equal(t, w, p.Backoff(i+1), "retry %d", i+1)
	}
	assert.Equal(t, 3*time.Second, p.Backoff(200), "no overflow")
	p.MaxInterval = 0
	assert.Greater(t, p.Backoff(200), time.Duration(0), "no overflow without a cap either")

	f := retry.Policy{Type: retry.Fixed, Count: 3, Interval: time.Second}
	assert.Equal(t, time.Second, f.Backoff(1))
	assert.Equal(t, time.Second, f.Backoff(3))
}

func TestDefaultLLMRetry(t *testing.T) {
	p := retry.DefaultLLM()
	require.NoError(t, p.Validate())
	assert.Equal(t, retry.Exponential, p.Type)
	assert.Equal(t, 3, p.Count)
	assert.Equal(t, 500*time.Millisecond, p.Interval)
	assert.Equal(t, 30*time.Second, p.MaxInterval)
	assert.Equal(t, retry.JitterFull, p.Jitter)
	for _, c := range []retry.Class{retry.ClassRateLimit, retry.ClassServerError, retry.ClassTimeout} {
		assert.True(t, p.Retries(c), c)
	}
	assert.False(t, p.Retries(retry.ClassError))
	assert.False(t, p.Retries(retry.ClassPermanent))

	catchAll := retry.Policy{Type: retry.Fixed, Count: 1, On: []retry.Class{retry.ClassError}}
	assert.True(t, catchAll.Retries(retry.ClassRateLimit), "error means any failure that is not permanent")
	assert.False(t, catchAll.Retries(retry.ClassPermanent))
	assert.False(t, retry.Never().Retries(retry.ClassServerError))
}

func TestValidate(t *testing.T) {
	bad := retry.Policy{Type: "linear", Count: -1, Interval: 2 * time.Second, MaxInterval: time.Second, Jitter: "half", On: []retry.Class{"permanent"}}
	err := bad.Validate()
	require.Error(t, err)
	for _, s := range []string{`"linear"`, `"half"`, "negative", "longer than max_interval", `"permanent"`} {
		assert.Contains(t, err.Error(), s)
	}
}

func TestFullJitterStaysWithinBounds(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	p := retry.DefaultLLM()
	p.Count = 6
	sl := &fakeSleep{}
	r := retry.Retrier{Policy: p, Sleep: sl.Sleep, Rand: src.Float64}
	for range 50 {
		_ = r.Do(context.Background(), agents.Input{}, "a", func(ctx context.Context, attempt int) error {
			return &retry.CallError{Status: 503, Err: errors.New("unavailable")}
		})
	}
	waits := sl.Waits()
	require.Len(t, waits, 50*6)
	var sawSmall, sawLarge bool
	for i, w := range waits {
		n := i%6 + 1
		b := p.Backoff(n)
		assert.GreaterOrEqual(t, w, time.Duration(0))
		assert.Less(t, w, b, "retry %d waits less than its backoff %s", n, b)
		if w < b/4 {
			sawSmall = true
		}
		if w > b*3/4 {
			sawLarge = true
		}
	}
	assert.True(t, sawSmall && sawLarge, "full jitter spreads over [0, backoff)")

	// Without jitter the waits are the backoff exactly.
	p.Jitter = retry.JitterNone
	sl2 := &fakeSleep{}
	r = retry.Retrier{Policy: p, Sleep: sl2.Sleep}
	_ = r.Do(context.Background(), agents.Input{}, "a", func(ctx context.Context, attempt int) error {
		return &retry.CallError{Status: 500}
	})
	assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}, sl2.Waits())
}

func TestRetryAfterIsHonouredAndCapped(t *testing.T) {
	zero := func() float64 { return 0 }
	cases := []struct {
		name   string
		policy retry.Policy
		after  time.Duration
		want   time.Duration
	}{
		{"honoured over a jittered backoff", retry.DefaultLLM(), 3 * time.Second, 3 * time.Second},
		{"capped by max_interval", retry.DefaultLLM(), 90 * time.Second, 30 * time.Second},
		{"default cap without max_interval",
			retry.Policy{Type: retry.Fixed, Count: 1, Interval: time.Second, On: []retry.Class{retry.ClassRateLimit}},
			time.Hour, retry.DefaultAfterCap},
		{"backoff wins when longer",
			retry.Policy{Type: retry.Fixed, Count: 1, Interval: 5 * time.Second, Jitter: retry.JitterNone, On: []retry.Class{retry.ClassRateLimit}},
			time.Second, 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sl := &fakeSleep{}
			r := retry.Retrier{Policy: tc.policy, Sleep: sl.Sleep, Rand: zero}
			calls := 0
			err := r.Do(context.Background(), agents.Input{}, "a", func(ctx context.Context, attempt int) error {
				calls++
				if calls == 1 {
					return &retry.CallError{Status: 429, RetryAfter: tc.after, Err: errors.New("slow down")}
				}
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, []time.Duration{tc.want}, sl.Waits())
		})
	}
}

func TestDoRetriesEmitsAndGivesUp(t *testing.T) {
	secret := secrets.New("sk-do-not-print-me")
	ev := &agenttest.Recorder{}
	in := agents.Input{Path: "loop › iteration 1 › scorer", Run: &agents.Run{ID: "run1", Observe: ev.Observe}}
	sl := &fakeSleep{}
	var logs safeBuffer
	r := retry.Retrier{Policy: retry.DefaultLLM(), Sleep: sl.Sleep, Rand: func() float64 { return 0.5 },
		Secrets: []secrets.Secret{secret}, Logger: newDebugLogger(&logs)}
	attempts := 0
	err := r.Do(context.Background(), in, "scorer", func(ctx context.Context, attempt int) error {
		attempts++
		assert.Equal(t, attempts, attempt)
		return &retry.CallError{Status: 500, Err: fmt.Errorf("server said key=%s", secret.Reveal())}
	})
	require.Error(t, err)
	assert.Equal(t, 4, attempts, "1 call + 3 retries")
	assert.Contains(t, err.Error(), "gave up after 4 attempts")
	assert.Equal(t, retry.ClassServerError, retry.Classify(err))

	got := ev.Events()
	require.Len(t, got, 3)
	for i, e := range got {
		assert.Equal(t, event.AgentRetry, e.Kind)
		assert.Equal(t, "run1", e.Run)
		assert.Equal(t, "scorer", e.Agent)
		assert.Equal(t, in.Path, e.Node)
		assert.Equal(t, i+1, e.Attempt)
		assert.Equal(t, sl.Waits()[i].Milliseconds(), e.Data["wait_ms"])
		assert.Equal(t, "server_error", e.Data["class"])
		assert.Equal(t, 500, e.Data["status"])
		assert.Contains(t, e.Error, "key=[redacted]")
		b, _ := json.Marshal(e)
		assert.NotContains(t, string(b), secret.Reveal())
	}
	assert.Contains(t, logs.String(), "retrying call")
	assert.NotContains(t, logs.String(), secret.Reveal())
}

func TestDoDoesNotRetryPermanentOrUnlisted(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"401", &retry.CallError{Status: 401, Err: errors.New("bad key")}},
		{"400", &retry.CallError{Status: 400}},
		{"403", &retry.CallError{Status: 403}},
		{"permanent", retry.Permanent(errors.New("no API key"))},
		{"plain error not in the default list", errors.New("odd")},
		{"exhausted script", fmt.Errorf("x: %w", scripted.ErrExhausted)},
		{"budget exceeded", fmt.Errorf("x: %w", spend.ErrBudgetExceeded)},
		{"no price", fmt.Errorf("x: %w", spend.ErrNoPrice)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sl := &fakeSleep{}
			r := retry.Retrier{Policy: retry.DefaultLLM(), Sleep: sl.Sleep}
			n := 0
			err := r.Do(context.Background(), agents.Input{}, "a", func(ctx context.Context, attempt int) error {
				n++
				return tc.err
			})
			assert.Equal(t, 1, n)
			assert.Same(t, tc.err, err, "a failure that is not retried comes back as is")
			assert.Empty(t, sl.Waits())
		})
	}
}

func TestDoStopsWaitingOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The real Sleep (a real timer) waits; the test cancels once the wait has
	// begun (a signal, not a guess at how long the machine takes). A Sleep that
	// missed the cancellation would wait the 20s out and make a second attempt.
	waiting := make(chan struct{})
	var slept atomic.Value
	r := retry.Retrier{Policy: retry.DefaultLLM(), Sleep: func(ctx context.Context, d time.Duration) error {
		slept.Store(d)
		close(waiting)
		return retry.Sleep(ctx, d)
	}}
	go func() {
		<-waiting
		cancel()
	}()
	err := r.Do(ctx, agents.Input{}, "a", func(ctx context.Context, attempt int) error {
		if attempt > 1 {
			t.Error("no second attempt after cancellation")
		}
		return &retry.CallError{Status: 429, RetryAfter: 20 * time.Second, Err: errors.New("rate limited")}
	})
	require.Error(t, err)
	assert.Equal(t, 20*time.Second, slept.Load(), "the wait is the server's Retry-After")
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "while waiting to retry")
	assert.Contains(t, err.Error(), "rate limited")
}

func TestDoDoesNotStartAWaitPastTheDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	sl := &fakeSleep{}
	r := retry.Retrier{Policy: retry.DefaultLLM(), Sleep: sl.Sleep}
	err := r.Do(ctx, agents.Input{}, "a", func(ctx context.Context, attempt int) error {
		return &retry.CallError{Status: 429, RetryAfter: 10 * time.Second, Err: errors.New("rate limited")}
	})
	require.Error(t, err)
	assert.Empty(t, sl.Waits())
	assert.Contains(t, err.Error(), "would pass the deadline")
}

func TestDoStopsWhenTheCallEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	sl := &fakeSleep{}
	r := retry.Retrier{Policy: retry.DefaultLLM(), Sleep: sl.Sleep}
	n := 0
	err := r.Do(ctx, agents.Input{}, "a", func(ctx context.Context, attempt int) error {
		n++
		<-ctx.Done()
		return errors.New("request timeout: API call exceeded deadline") // a client that drops the cause
	})
	assert.Equal(t, 1, n)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, sl.Waits())
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassify(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := net.Dial("tcp", addr)
	require.Error(t, refused)

	cases := []struct {
		err  error
		want retry.Class
	}{
		{nil, ""},
		{&retry.CallError{Status: 429}, retry.ClassRateLimit},
		{&retry.CallError{Status: 408}, retry.ClassTimeout},
		{&retry.CallError{Status: 500}, retry.ClassServerError},
		{&retry.CallError{Status: 503}, retry.ClassServerError},
		{&retry.CallError{Status: 400}, retry.ClassPermanent},
		{&retry.CallError{Status: 401}, retry.ClassPermanent},
		{&retry.CallError{Status: 403}, retry.ClassPermanent},
		{&retry.CallError{Status: 404}, retry.ClassPermanent},
		{&retry.CallError{Class: retry.ClassTimeout, Status: 500}, retry.ClassTimeout},
		{fmt.Errorf("wrapped: %w", &retry.CallError{Status: 429}), retry.ClassRateLimit},
		{context.Canceled, retry.ClassPermanent},
		{context.DeadlineExceeded, retry.ClassTimeout},
		{fmt.Errorf("x: %w", scripted.ErrExhausted), retry.ClassPermanent},
		{refused, retry.ClassServerError},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, retry.ClassTimeout},
		{&net.DNSError{Err: "no such host", Name: "nope.invalid", IsNotFound: true}, retry.ClassPermanent},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/chat/completions", Err: errors.New("http: server closed idle connection")}, retry.ClassServerError},
		{errors.New("something"), retry.ClassError},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, retry.Classify(tc.err), "%v", tc.err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, 7*time.Second, retry.ParseAfter("7", now))
	assert.Equal(t, 1500*time.Millisecond, retry.ParseAfter(" 1.5 ", now))
	assert.Equal(t, 10*time.Second, retry.ParseAfter(now.Add(10*time.Second).Format(time.RFC1123), now))
	for _, v := range []string{"", "-3", "0", "soon", now.Add(-time.Minute).Format(time.RFC1123), "NaN"} {
		assert.Zero(t, retry.ParseAfter(v, now), v)
	}
}

func readPolicy(t *testing.T, src string) (retry.Policy, *load.Problems) {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
	probs := &load.Problems{}
	c := load.NewConfig("wf.yaml", &doc, "agent \"a\"", probs)
	p := retry.ReadPolicy(c, "retry", retry.DefaultLLM())
	c.Accept("id")
	c.Done()
	return p, probs
}

func TestReadRetryPolicy(t *testing.T) {
	p, probs := readPolicy(t, `
retry:
  type: fixed
  count: 5
  interval: 2s
  max_interval: PT10S
  jitter: none
  on: [rate_limit, error]
`)
	require.NoError(t, probs.Err())
	assert.Equal(t, retry.Policy{Type: retry.Fixed, Count: 5, Interval: 2 * time.Second, MaxInterval: 10 * time.Second,
		Jitter: retry.JitterNone, On: []retry.Class{retry.ClassRateLimit, retry.ClassError}}, p)

	p, probs = readPolicy(t, "retry: {count: 1}\n")
	require.NoError(t, probs.Err())
	want := retry.DefaultLLM()
	want.Count = 1
	assert.Equal(t, want, p, "absent keys keep the defaults")

	p, probs = readPolicy(t, "retry: none\n")
	require.NoError(t, probs.Err())
	assert.False(t, p.Retries(retry.ClassServerError))

	p, probs = readPolicy(t, "id: a\n")
	require.NoError(t, probs.Err())
	assert.Equal(t, retry.DefaultLLM(), p)

	p, probs = readPolicy(t, "retry: {type: none, count: 4}\n")
	require.NoError(t, probs.Err())
	assert.Equal(t, 0, p.Count)
}

func TestReadRetryPolicyProblems(t *testing.T) {
	p, probs := readPolicy(t, `retry:
  type: linear
  jitter: half
  on: [rate_limit, flaky]
  interval: 5s
  max_interval: 1s
  cuont: 3
`)
	assert.Equal(t, retry.DefaultLLM(), p, "a bad policy falls back to the default")
	err := probs.Err()
	require.Error(t, err)
	msg := err.Error()
	for _, s := range []string{
		`wf.yaml:2:3: agent "a": retry: type must be none, fixed or exponential, not "linear"`,
		`wf.yaml:3:3:`, `"half"`,
		`wf.yaml:4:20:`, `"flaky" is not an error class`,
		`wf.yaml:6:3:`, `max_interval 1s is shorter than interval 5s`,
		`wf.yaml:7:3:`, `unknown key "cuont" (did you mean "count"?)`,
	} {
		assert.Contains(t, msg, s)
	}

	_, probs = readPolicy(t, "retry: [1, 2]\n")
	require.Error(t, probs.Err())
	assert.Contains(t, probs.Err().Error(), "wf.yaml:1:8: agent \"a\": retry must be a mapping")
}

type safeBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

func newDebugLogger(w *safeBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
