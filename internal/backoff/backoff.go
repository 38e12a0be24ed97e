package backoff

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// Jitter is how a wait is randomised.
type Jitter string

// Jitter kinds.
const (
	JitterNone Jitter = "none" // wait exactly the computed interval
	JitterFull Jitter = "full" // wait a uniform random time in [0, interval) ("full jitter")
	// JitterFraction: wait the interval ± Policy.Fraction of it.
	JitterFraction Jitter = "fraction"
)

// Policy is a retry schedule: how many retries and how long to wait before
// each. The zero value retries never and waits nothing.
type Policy struct {
	// Count is the number of retries after the first try.
	Count int
	// Exponential doubles the wait after each retry (Interval, 2×, 4×, …);
	// otherwise every wait is Interval.
	Exponential bool
	// Interval is the wait before the first retry.
	Interval time.Duration
	// MaxInterval caps every wait, jitter included; 0 means no cap.
	MaxInterval time.Duration
	// MinInterval is a floor under every wait, after jitter; 0 means none.
	MinInterval time.Duration
	Jitter      Jitter
	// Fraction is the ± share of the interval under [JitterFraction], in (0, 1].
	Fraction float64
}

// Delay is the wait before retry n (1-based), before jitter: Interval, doubled
// n-1 times when Exponential, capped by MaxInterval.
func (p Policy) Delay(n int) time.Duration {
	if n < 1 || p.Interval <= 0 {
		return 0
	}
	d := p.Interval
	if p.Exponential {
		f := float64(p.Interval) * math.Pow(2, float64(n-1))
		if f >= float64(math.MaxInt64) {
			d = time.Duration(math.MaxInt64)
		} else {
			d = time.Duration(f)
		}
	}
	if p.MaxInterval > 0 && d > p.MaxInterval {
		d = p.MaxInterval
	}
	return d
}

// Wait is the wait before retry n (1-based): [Policy.Delay] with jitter, at
// least MinInterval. rnd returns a number in [0, 1); nil is math/rand/v2's
// Float64.
func (p Policy) Wait(n int, rnd func() float64) time.Duration {
	d := p.Delay(n)
	if (p.Jitter == JitterFull || p.Jitter == JitterFraction) && d > 0 {
		if rnd == nil {
			rnd = rand.Float64
		}
		f := rnd()
		if f < 0 || f >= 1 {
			f = 0
		}
		if p.Jitter == JitterFull {
			d = time.Duration(f * float64(d))
		} else {
			// ±Fraction: f in [0,1) maps to [-fraction, +fraction).
			d = time.Duration(float64(d) * (1 + p.Fraction*(2*f-1)))
			if p.MaxInterval > 0 && d > p.MaxInterval {
				d = p.MaxInterval
			}
		}
	}
	return max(d, p.MinInterval)
}

// Sleep waits d, or until ctx ends (returning ctx.Err()).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
