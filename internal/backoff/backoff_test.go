package backoff

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDelay(t *testing.T) {
	exp := Policy{Exponential: true, Interval: 100 * time.Millisecond, MaxInterval: time.Second}
	var got []time.Duration
	for n := 0; n <= 6; n++ {
		got = append(got, exp.Delay(n))
	}
	assert.Equal(t, []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second}, got)
	fixed := Policy{Interval: time.Second}
	assert.Equal(t, time.Second, fixed.Delay(5))
	huge := Policy{Exponential: true, Interval: time.Hour}
	assert.Equal(t, time.Duration(math.MaxInt64), huge.Delay(200), "no overflow without a cap")
	assert.Zero(t, Policy{}.Delay(3))
}

func TestWaitJitter(t *testing.T) {
	half := func() float64 { return 0.5 }
	p := Policy{Interval: time.Second, Jitter: JitterFull}
	assert.Equal(t, 500*time.Millisecond, p.Wait(1, half))
	p.MinInterval = 700 * time.Millisecond
	assert.Equal(t, 700*time.Millisecond, p.Wait(1, half), "the floor is applied after jitter")
	frac := Policy{Interval: time.Second, Jitter: JitterFraction, Fraction: 0.2}
	assert.Equal(t, 800*time.Millisecond, frac.Wait(1, func() float64 { return 0 }))
	assert.Equal(t, time.Second, frac.Wait(1, half))
	frac.MaxInterval = time.Second
	assert.Equal(t, time.Second, frac.Wait(1, func() float64 { return 0.99 }), "the cap holds after jitter")
	assert.Zero(t, Policy{Interval: time.Second, Jitter: JitterFull}.Wait(1, func() float64 { return 1 }),
		"an out-of-range random number counts as 0")
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled)
	assert.NoError(t, Sleep(context.Background(), 0))
}
