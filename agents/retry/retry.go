package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/backoff"
)

// Type is how the wait between attempts grows.
type Type string

// Retry types, as written in YAML (retry: {type: ...}).
const (
	None        Type = "none"        // one attempt, no retries
	Fixed       Type = "fixed"       // Interval between attempts
	Exponential Type = "exponential" // Interval, 2×, 4×, … capped by MaxInterval
)

// Jitter is how the wait is randomised (the schedule's arithmetic is
// internal/backoff's, shared with the Redis store and the queue).
type Jitter = backoff.Jitter

// Jitter kinds (retry: {jitter: ...}).
const (
	JitterNone = backoff.JitterNone // wait exactly the computed interval
	JitterFull = backoff.JitterFull // wait a uniform random time in [0, interval) ("full jitter")
	// JitterFraction: wait the interval ± Policy.JitterFraction of it
	// (YAML jitter: 0.1 is ±10 %).
	JitterFraction = backoff.JitterFraction
)

// Class is what kind of failure an error is, for deciding whether to retry.
type Class string

// Error classes. The first four are the names a retry policy's On lists.
const (
	// ClassTimeout: an attempt timed out (a network timeout, HTTP 408) while the
	// call as a whole still had time.
	ClassTimeout Class = "timeout"
	// ClassRateLimit: HTTP 429.
	ClassRateLimit Class = "rate_limit"
	// ClassServerError: HTTP 5xx, and failures to reach or hear from the server
	// (connection refused or reset, a response cut short).
	ClassServerError Class = "server_error"
	// ClassError: any other failure. In a policy's On, "error" means any failure
	// that is not permanent, so it includes the three classes above.
	ClassError Class = "error"
	// ClassPermanent: never retried — HTTP 4xx other than 408/429 (400, 401, 403,
	// 404, …), a missing API key, an exhausted script, a cancelled context.
	ClassPermanent Class = "permanent"
)

// DefaultAfterCap bounds a server's Retry-After when the policy has no MaxInterval.
const DefaultAfterCap = time.Minute

// Policy says when and how often a failed call is tried again. It is plain
// data, the Go form of the YAML
//
//	retry: {type: exponential, count: 3, interval: 500ms, max_interval: 30s,
//	        jitter: full, on: [rate_limit, server_error, timeout]}
//
// on: also takes HTTP statuses (on: [429, 503]); jitter: also takes a fraction
// (jitter: 0.1 waits the interval ±10 %); minimum_interval is a floor under
// every wait.
//
// Use [ReadPolicy] to read it with positions and [Retrier] to run calls under it.
type Policy struct {
	Type Type
	// Count is the number of retries after the first attempt.
	Count int
	// Interval is the wait before the first retry (the base of exponential backoff).
	Interval time.Duration
	// MaxInterval caps every wait, a server's Retry-After included; 0 means no cap
	// on computed waits and [DefaultAfterCap] on Retry-After.
	MaxInterval time.Duration
	// MinInterval is a floor under every wait, after jitter; 0 means none.
	MinInterval time.Duration
	Jitter      Jitter
	// JitterFraction is the ± share of the interval under [JitterFraction]
	// jitter, in (0, 1].
	JitterFraction float64
	// On lists the error classes that are retried.
	On []Class
	// OnStatus lists HTTP statuses (400-599) that are retried whatever their
	// class; a fatal error is never retried.
	OnStatus []int
}

// DefaultLLM is the policy of LLM agents: exponential backoff from 500ms to
// 30s with full jitter, 3 retries, on rate limits, server errors and timeouts.
func DefaultLLM() Policy {
	return Policy{
		Type:        Exponential,
		Count:       3,
		Interval:    500 * time.Millisecond,
		MaxInterval: 30 * time.Second,
		Jitter:      JitterFull,
		On:          []Class{ClassRateLimit, ClassServerError, ClassTimeout},
	}
}

// DefaultAgent is the policy of retry: on an agent that does not retry by
// itself (anything but the LLM agents, validators and memory agents), for the
// keys the mapping leaves out: exponential backoff from 1s to 1m with full
// jitter, 3 retries, on any failure that is not permanent. An agent without
// retry: is tried once.
func DefaultAgent() Policy {
	return Policy{
		Type:        Exponential,
		Count:       3,
		Interval:    time.Second,
		MaxInterval: time.Minute,
		Jitter:      JitterFull,
		On:          []Class{ClassError},
	}
}

// Never is the policy that tries once.
func Never() Policy { return Policy{Type: None} }

// Validate reports what is wrong with p.
func (p Policy) Validate() error {
	errs := p.modeErrors()
	errs = append(errs, p.numberErrors()...)
	for _, c := range p.On {
		if !retryableClass(c) {
			errs = append(errs, fmt.Errorf("retry on %q: want timeout, rate_limit, server_error or error", c))
		}
	}
	return errors.Join(errs...)
}

// modeErrors are the problems of p's type and jitter.
func (p Policy) modeErrors() []error {
	var errs []error
	switch p.Type {
	case None, Fixed, Exponential:
	default:
		errs = append(errs, fmt.Errorf("retry type %q: want none, fixed or exponential", p.Type))
	}
	switch p.Jitter {
	case JitterNone, JitterFull, "":
	case JitterFraction:
		if !(p.JitterFraction > 0 && p.JitterFraction <= 1) {
			errs = append(errs, fmt.Errorf("retry jitter fraction %g: want a number in (0, 1]", p.JitterFraction))
		}
	default:
		errs = append(errs, fmt.Errorf("retry jitter %q: want full, none or a fraction in (0, 1]", p.Jitter))
	}
	return errs
}

// numberErrors are the problems of p's intervals, statuses and count.
func (p Policy) numberErrors() []error {
	var errs []error
	if p.MinInterval < 0 {
		errs = append(errs, errors.New("retry minimum_interval must not be negative"))
	}
	if p.MaxInterval > 0 && p.MinInterval > p.MaxInterval {
		errs = append(errs, fmt.Errorf("retry minimum_interval %s is longer than max_interval %s", p.MinInterval, p.MaxInterval))
	}
	for _, st := range p.OnStatus {
		if st < 400 || st > 599 {
			errs = append(errs, fmt.Errorf("retry on %d: an HTTP status to retry is 400-599", st))
		}
	}
	if p.Count < 0 {
		errs = append(errs, fmt.Errorf("retry count %d is negative", p.Count))
	}
	if p.Interval < 0 || p.MaxInterval < 0 {
		errs = append(errs, errors.New("retry intervals must not be negative"))
	}
	if p.MaxInterval > 0 && p.Interval > p.MaxInterval {
		errs = append(errs, fmt.Errorf("retry interval %s is longer than max_interval %s", p.Interval, p.MaxInterval))
	}
	return errs
}

func retryableClass(c Class) bool {
	switch c {
	case ClassTimeout, ClassRateLimit, ClassServerError, ClassError:
		return true
	}
	return false
}

// Retries reports whether p retries a failure of class c. Permanent failures are
// never retried; "error" in On matches every other class.
func (p Policy) Retries(c Class) bool {
	if p.Type == None || p.Count <= 0 || c == ClassPermanent || c == "" {
		return false
	}
	for _, o := range p.On {
		if o == c || o == ClassError {
			return true
		}
	}
	return false
}

// RetriesErr reports whether p retries err: its class ([Retries]), or the
// HTTP status of a [CallError] in its chain when OnStatus lists it (a fatal
// error excepted).
func (p Policy) RetriesErr(err error) bool {
	if p.Retries(Classify(err)) {
		return true
	}
	if p.Type == None || p.Count <= 0 || len(p.OnStatus) == 0 || fault.Stops(err) || errors.Is(err, context.Canceled) {
		return false
	}
	var ce *CallError
	if errors.As(err, &ce) && ce.Status != 0 {
		for _, st := range p.OnStatus {
			if st == ce.Status {
				return true
			}
		}
	}
	return false
}

// Backoff is the wait before retry n (1-based), before jitter and Retry-After.
func (p Policy) Backoff(n int) time.Duration { return p.Schedule().Delay(n) }

// Schedule is p's waits as the project's one retry schedule.
func (p Policy) Schedule() backoff.Policy {
	return backoff.Policy{Count: p.Count, Exponential: p.Type == Exponential, Interval: p.Interval,
		MaxInterval: p.MaxInterval, MinInterval: p.MinInterval, Jitter: p.Jitter, Fraction: p.JitterFraction}
}

// ReadPolicy reads key of c as a retry policy, starting from def; absent
// keys keep def's values. "retry: none" (or false) is the no-retry policy.
// Problems are recorded on c with positions; on a problem the result is def.
func ReadPolicy(c *load.Config, key string, def Policy) Policy {
	n := c.Node(key)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return def
	}
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "none", "false", "off", "no":
			return Never()
		}
		c.Errorf(key, "%s must be a mapping {type, count, interval, max_interval, jitter, on} or none, not %s", key, load.KindName(n))
		return def
	}
	rc := c.Map(key)
	if rc == nil {
		return def
	}
	before := len(c.Problems().Errors())
	p := readPolicyMap(rc, def)
	if len(c.Problems().Errors()) > before {
		return def
	}
	return p
}

// readPolicyMap reads a retry mapping rc, starting from def.
func readPolicyMap(rc *load.Config, def Policy) Policy {
	p := def
	if rc.Has("type") {
		p.Type = Type(strings.ToLower(rc.String("type", string(def.Type))))
		switch p.Type {
		case None, Fixed, Exponential:
		default:
			rc.Errorf("type", "type must be none, fixed or exponential, not %q", p.Type)
		}
	}
	p.Count = rc.Int("count", def.Count, 0, 100)
	p.Interval = rc.Duration("interval", def.Interval)
	p.MaxInterval = rc.Duration("max_interval", def.MaxInterval)
	p.MinInterval = rc.Duration("minimum_interval", def.MinInterval)
	if rc.Has("jitter") {
		p.Jitter, p.JitterFraction = readJitter(rc, def)
	}
	if rc.Has("on") {
		p.On, p.OnStatus = readRetryOn(rc)
	}
	if p.MaxInterval > 0 && p.Interval > p.MaxInterval {
		rc.Errorf("max_interval", "max_interval %s is shorter than interval %s", p.MaxInterval, p.Interval)
	}
	if p.MaxInterval > 0 && p.MinInterval > p.MaxInterval {
		rc.Errorf("minimum_interval", "minimum_interval %s is longer than max_interval %s", p.MinInterval, p.MaxInterval)
	}
	rc.Done()
	if p.Type == None {
		p.Count = 0
	}
	return p
}

// readJitter reads jitter: full, none, or a fraction of the interval in (0, 1].
func readJitter(rc *load.Config, def Policy) (Jitter, float64) {
	v := strings.ToLower(strings.TrimSpace(rc.TextOrNumber("jitter", string(def.Jitter))))
	switch Jitter(v) {
	case JitterFull, JitterNone:
		return Jitter(v), 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f > 0 && f <= 1 {
			return JitterFraction, f
		}
		rc.Errorf("jitter", "jitter %s is out of range: a fraction of the interval is above 0 and at most 1 (0.1 = ±10 %%)", v)
		return def.Jitter, def.JitterFraction
	}
	rc.Errorf("jitter", "jitter must be full, none or a fraction such as 0.1 (±10 %%), not %q", v)
	return def.Jitter, def.JitterFraction
}

// readRetryOn reads on: error classes and HTTP statuses (400-599).
func readRetryOn(rc *load.Config) ([]Class, []int) {
	var classes []Class
	var statuses []int
	n := load.Resolve(rc.Node("on"))
	items := []*yaml.Node{n}
	if n != nil && n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	for _, it := range items {
		it = load.Resolve(it)
		if it == nil || it.Kind != yaml.ScalarNode {
			rc.Problems().Errorf(rc.PosOf(it), "%s: on: list error classes (timeout, rate_limit, server_error, error) or HTTP statuses (429, 503), not %s", rc.What(), load.KindName(it))
			continue
		}
		s := strings.TrimSpace(it.Value)
		if st, err := strconv.Atoi(s); err == nil {
			if st < 400 || st > 599 {
				rc.Problems().Errorf(rc.PosOf(it), "%s: on: %d is not an HTTP error status (400-599)", rc.What(), st)
				continue
			}
			statuses = append(statuses, st)
			continue
		}
		cl := Class(strings.ToLower(s))
		if !retryableClass(cl) {
			rc.Problems().Errorf(rc.PosOf(it), "%s: on: %q is not an error class or HTTP status (want timeout, rate_limit, server_error, error, or a status such as 429 or 503)", rc.What(), s)
			continue
		}
		classes = append(classes, cl)
	}
	rc.Accept("on")
	return classes, statuses
}

// CallError is a failed call with what a retry policy needs to know about it:
// its class (or the HTTP status it is derived from) and the server's Retry-After.
type CallError struct {
	// Class, when set, is the class; otherwise [Classify] derives it from Status
	// and Err.
	Class Class
	// Status is the HTTP status of the failed response, 0 when there was none.
	Status int
	// After is the wait the server asked for, 0 when it did not.
	RetryAfter time.Duration
	Err        error
}

func (e *CallError) Error() string {
	if e.Err == nil {
		if e.Status != 0 {
			return fmt.Sprintf("call failed with HTTP %d", e.Status)
		}
		return "call failed"
	}
	return e.Err.Error()
}

func (e *CallError) Unwrap() error { return e.Err }

// Permanent marks err as never worth retrying (a missing API key, a bad config).
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &CallError{Class: ClassPermanent, Err: err}
}

// StatusClass is the class of an HTTP status: 429 rate_limit, 408 timeout, 5xx
// server_error, other 4xx permanent, anything else error.
func StatusClass(status int) Class {
	switch {
	case status == 429:
		return ClassRateLimit
	case status == 408:
		return ClassTimeout
	case status >= 500:
		return ClassServerError
	case status >= 400:
		return ClassPermanent
	}
	return ClassError
}

// Classify says what kind of failure err is. A [CallError] in the chain decides
// first (its Class, else its Status: an exhausted script is a permanent one); then context cancellation
// and refusals of a budget ([spend.ErrBudgetExceeded], [spend.ErrNoPrice]) are
// permanent, deadlines and network timeouts are timeouts, refused or
// reset connections, cut-short responses and requests sent on a connection the
// server had closed are server errors; anything else is
// ClassError. Classify(nil) is "".
func Classify(err error) Class {
	if err == nil {
		return ""
	}
	if fault.Stops(err) { // a fatal error or an interrupt: never retried
		return ClassPermanent
	}
	var ce *CallError
	if errors.As(err, &ce) {
		if ce.Class != "" {
			return ce.Class
		}
		if ce.Status != 0 {
			return StatusClass(ce.Status)
		}
	}
	switch {
	case errors.Is(err, context.Canceled),
		errors.Is(err, spend.ErrBudgetExceeded), errors.Is(err, spend.ErrNoPrice):
		return ClassPermanent
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ClassTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ClassTimeout
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		if dns.IsNotFound {
			return ClassPermanent
		}
		return ClassServerError
	}
	for _, t := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, io.ErrUnexpectedEOF, io.EOF} {
		if errors.Is(err, t) {
			return ClassServerError
		}
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return ClassServerError
	}
	if strings.Contains(err.Error(), serverClosedIdle) {
		return ClassServerError
	}
	return ClassError
}

// serverClosedIdle is net/http's error (unexported there) for a request sent
// on a kept-alive connection that the server closed meanwhile: nothing reached
// the server, so the call can be made again. net/http retries it only for
// idempotent requests, and model calls are POSTs.
const serverClosedIdle = "http: server closed idle connection"

// After returns the Retry-After carried by a [CallError] in err's chain, or 0.
func After(err error) time.Duration {
	var ce *CallError
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		return ce.RetryAfter
	}
	return 0
}

// ParseAfter reads a Retry-After header value: delay seconds ("120", "1.5")
// or an HTTP date. It returns 0 for an empty, malformed or past value.
func ParseAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0
		}
		if f > float64(365*24*time.Hour/time.Second) {
			f = float64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(f * float64(time.Second))
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			if d := t.Sub(now); d > 0 {
				return d
			}
			return 0
		}
	}
	return 0
}

// Retrier runs calls under a [Policy]. The zero value of every field but
// Policy is usable: real timers, math/rand/v2, time.Now, no secrets, no log.
// A Retrier holds no per-call state and is safe for concurrent use if its
// functions are.
type Retrier struct {
	Policy Policy
	// Sleep waits d or until ctx ends, returning ctx.Err() then. Tests put a fake
	// here to record waits without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for jitter.
	Rand func() float64
	// Now is the clock used with ctx's deadline.
	Now func() time.Time
	// Secrets are scrubbed from error text in events and logs.
	Secrets []secrets.Secret
	// Logger, when set, logs each retry at debug level.
	Logger *slog.Logger
}

// Sleep waits d, or until ctx ends (returning ctx.Err()).
func Sleep(ctx context.Context, d time.Duration) error { return backoff.Sleep(ctx, d) }

// Do calls fn (attempt 1, 2, …) until it succeeds, fails with an error the
// policy does not retry, runs out of retries, or ctx ends. Before each retry it
// waits — the policy's backoff with jitter, at least the server's Retry-After
// (capped by MaxInterval, else [DefaultAfterCap]) — and emits an
// [event.AgentRetry] event for agent through in.Run: Attempt is the attempt
// that failed, Error its error, Data its class (and HTTP status), wait_ms,
// next_attempt and max_attempts. A wait that would pass ctx's
// deadline is not started: Do gives up at once. Cancellation interrupts a wait
// at once; the error then wraps both ctx.Err() and the last failure.
func (r *Retrier) Do(ctx context.Context, in agents.Input, agent string, fn func(ctx context.Context, attempt int) error) error {
	p := r.Policy
	for attempt := 1; ; attempt++ {
		err := fn(ctx, attempt)
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			if !errors.Is(err, cerr) {
				err = fmt.Errorf("%w: %w", cerr, err)
			}
			return err
		}
		class := Classify(err)
		if attempt > p.Count || !p.RetriesErr(err) {
			if attempt > 1 {
				return fmt.Errorf("gave up after %d attempts: %w", attempt, err)
			}
			return err
		}
		wait := r.wait(attempt, err)
		if dl, ok := ctx.Deadline(); ok && r.now().Add(wait).After(dl) {
			return fmt.Errorf("gave up after %d attempts (the next, in %s, would pass the deadline): %w", attempt, wait.Round(time.Millisecond), err)
		}
		msg := fault.Truncate(secrets.Scrub(err.Error(), r.Secrets...), 500)
		data := map[string]any{"wait_ms": wait.Milliseconds(), "class": string(class),
			"next_attempt": attempt + 1, "max_attempts": p.Count + 1}
		var ce *CallError
		if errors.As(err, &ce) && ce.Status != 0 {
			data["status"] = ce.Status
		}
		in.Run.Emit(event.Event{Kind: event.AgentRetry, Node: in.Path, Agent: agent, Attempt: attempt, Error: msg, Data: data})
		if r.Logger != nil {
			r.Logger.LogAttrs(ctx, slog.LevelDebug, "retrying call", slog.String("agent", agent),
				slog.Int("attempt", attempt), slog.Duration("wait", wait), slog.String("class", string(class)), slog.String("error", msg))
		}
		if serr := r.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("%w while waiting to retry (attempt %d failed: %w)", serr, attempt, err)
		}
	}
}

func (r *Retrier) wait(n int, err error) time.Duration {
	d := r.Policy.Schedule().Wait(n, r.Rand)
	if ra := After(err); ra > 0 {
		limit := r.Policy.MaxInterval
		if limit <= 0 {
			limit = DefaultAfterCap
		}
		d = max(d, min(ra, limit))
	}
	return d
}

func (r *Retrier) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

func (r *Retrier) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Agent is an agent run again under a retry policy when it fails: what
// retry: on an agent definition builds for agents that do not retry by
// themselves. Build one with [Wrap]. It is immutable and safe for
// concurrent Run calls if the agent and the Retrier's functions are.
type Agent struct {
	agent agents.Agent
	id    string
	r     Retrier
}

var _ agents.Agent = (*Agent)(nil)

// Wrap wraps a so that a failed Run (an error, not an error
// record in an output) is tried again under r.Policy: the failure is
// classified with [Classify], each retry waits and emits an [event.AgentRetry]
// event naming id, as [Retrier.Do] says. The agent's abilities ([agents.Exposer],
// [agents.Director], [agents.Referrer]) are read through [Agent.Unwrap] when its
// step is made ([agents.NewStep]).
func Wrap(a agents.Agent, r Retrier, id string) *Agent {
	return &Agent{agent: a, id: id, r: r}
}

// Run runs the agent until it succeeds or the policy gives up. The output is
// the last attempt's, with Usage summed over every attempt.
func (w *Agent) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	var out agents.Output
	var usage spend.Usage
	err := w.r.Do(ctx, in, w.id, func(ctx context.Context, _ int) error {
		o, err := w.agent.Run(ctx, in)
		usage = usage.Add(o.Usage)
		out = o
		return err
	})
	out.Usage = usage
	return out, err
}

// Unwrap returns the wrapped agent.
func (w *Agent) Unwrap() agents.Agent { return w.agent }

// Policy is the policy the agent runs under.
func (w *Agent) Policy() Policy { return w.r.Policy }
