package llm

import (
	"context"
	"sync"
	"time"

	"github.com/cogloop/cogloop/internal/perf"
)

// withDeadline is context.WithDeadline(parent, d) made lazily: the timer and
// the registration with parent that context.WithDeadline sets up at once
// (four allocations and a few thousand instructions per call) are made only
// when something asks for Done: a model that waits (an HTTP client, a delayed
// reply). A model that answers at once reads Err, which is answered from the
// clock. The context behaves as the one context.WithDeadline returns: the
// same Deadline, Err and cause (Done made after the deadline, after parent
// ended or after stop is closed at once, with the error it would have had).
// One difference no caller can see: when both the deadline and parent's end
// pass while nothing looks, the context reports parent's error, where the
// real one would report whichever came first.
//
// When parent ends no later than d, parent itself is returned, with a nil
// *lazyDeadline (context.WithDeadline also keeps parent's deadline; there is
// nothing to release). Otherwise the caller calls stop on the second result
// when done, as it would the CancelFunc.
//
// now is the time the caller read when it computed d (so the clock is not
// read again here).
func withDeadline(parent context.Context, now, d time.Time) (context.Context, *lazyDeadline) {
	if cur, ok := parent.Deadline(); ok && !cur.After(d) {
		return parent, nil
	}
	c := &lazyDeadline{parent: parent, deadline: d}
	if !d.After(now) || parent.Err() != nil || perf.Off(perf.LazyDeadline) { // ended already (or switched off): as eager as context.WithDeadline
		c.materialize()
	}
	return c, c
}

// lazyDeadline is the context withDeadline returns.
type lazyDeadline struct {
	parent   context.Context
	deadline time.Time

	mu      sync.Mutex
	real    context.Context // made by materialize; nil until then
	cancel  context.CancelFunc
	stopped bool
}

// materialize makes the real context, once; the caller holds mu. Made after
// stop (which materializes it when parent or the deadline had ended it by
// then), it is one stopped before its end: cancelled, with Canceled.
func (c *lazyDeadline) materialize() context.Context {
	if c.real == nil {
		if c.stopped {
			var cancel context.CancelFunc
			c.real, cancel = context.WithCancel(context.WithoutCancel(c.parent))
			cancel()
		} else {
			c.real, c.cancel = context.WithDeadline(c.parent, c.deadline)
		}
	}
	return c.real
}

// passed reports whether the real context would have ended by now without
// being stopped.
func (c *lazyDeadline) passed() bool {
	return c.parent.Err() != nil || !time.Now().Before(c.deadline)
}

func (c *lazyDeadline) stop() {
	c.mu.Lock()
	if c.real == nil && c.passed() {
		// Keep what ended it (deadline or parent) rather than Canceled.
		c.materialize()
	}
	c.stopped = true
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *lazyDeadline) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.materialize().Done()
}

func (c *lazyDeadline) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.real != nil || c.stopped || c.passed() {
		return c.materialize().Err()
	}
	return nil
}

// Value answers from the real context once there is one, so that contexts
// derived from it find its cancellation (context.Cause asks Err first, which
// makes the real context when it has ended).
func (c *lazyDeadline) Value(key any) any {
	c.mu.Lock()
	real := c.real
	c.mu.Unlock()
	if real != nil {
		return real.Value(key)
	}
	return c.parent.Value(key)
}

func (c *lazyDeadline) String() string {
	return "llm.withDeadline(" + c.deadline.String() + ")"
}
