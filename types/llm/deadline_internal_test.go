package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ctxKey struct{}

// TestLazyDeadlineBehavesAsContextWithDeadline runs the same steps on
// context.WithDeadline and on withDeadline, with the deadline passed or not,
// and compares Err, Cause, Deadline and Value (after every step, or only at
// the end) and Done at the end: orders of cancelling the parent, stopping,
// and asking for Done.
func TestLazyDeadlineBehavesAsContextWithDeadline(t *testing.T) {
	cause := errors.New("parent gave up")
	steps := map[string]func(ctx context.Context, cancelParent context.CancelCauseFunc, stop func()){
		"cancel parent": func(_ context.Context, cancelParent context.CancelCauseFunc, _ func()) { cancelParent(cause) },
		"stop":          func(_ context.Context, _ context.CancelCauseFunc, stop func()) { stop() },
		"done":          func(ctx context.Context, _ context.CancelCauseFunc, _ func()) { _ = ctx.Done() },
	}
	orders := [][]string{{}, {"cancel parent"}, {"stop"}, {"done"},
		{"cancel parent", "stop"}, {"stop", "cancel parent"}, {"done", "stop"}, {"stop", "done"},
		{"done", "cancel parent"}, {"cancel parent", "done"},
		{"done", "cancel parent", "stop"}, {"stop", "cancel parent", "done"}, {"cancel parent", "stop", "done"}}
	for _, passed := range []bool{false, true} {
		d := time.Now().Add(time.Hour)
		if passed {
			d = time.Now().Add(-time.Millisecond)
		}
		for _, order := range orders {
			for _, eachStep := range []bool{true, false} {
				t.Run(fmt.Sprintf("passed=%v/%v/observed each step=%v", passed, order, eachStep), func(t *testing.T) {
					refParent, refCancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
					ref, refStop := context.WithDeadline(refParent, d)
					lzParent, lzCancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
					lz, dl := withDeadline(lzParent, time.Now(), d)
					lzStop := dl.stop
					defer refStop()
					defer lzStop()
					defer refCancel(nil)
					defer lzCancel(nil)
					same := func(after string) {
						// Cause first: it must not rely on Err having made the real context.
						assert.Equal(t, context.Cause(ref), context.Cause(lz), "Cause after %s", after)
						assert.Equal(t, ref.Err(), lz.Err(), "Err after %s", after)
						assert.Equal(t, "v", lz.Value(ctxKey{}), "Value after %s", after)
						dl, ok := lz.Deadline()
						assert.True(t, ok)
						assert.Equal(t, d, dl)
					}
					if eachStep {
						same("nothing")
					}
					for _, s := range order {
						steps[s](ref, refCancel, refStop)
						steps[s](lz, lzCancel, lzStop)
						if eachStep {
							same(s)
						}
					}
					same("every step")
					assert.Equal(t, closed(ref.Done()), closed(lz.Done()), "Done at the end")
					same("Done")
				})
			}
		}
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestLazyDeadlineEndsAtItsDeadline: a waiter on Done is released by the
// deadline, with DeadlineExceeded.
func TestLazyDeadlineEndsAtItsDeadline(t *testing.T) {
	ctx, dl := withDeadline(context.Background(), time.Now(), time.Now().Add(5*time.Millisecond))
	defer dl.stop()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
}

// TestLazyDeadlineKeepsAnEarlierParentDeadline: a parent that ends first is
// the context itself, as context.WithDeadline would behave.
func TestLazyDeadlineKeepsAnEarlierParentDeadline(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx, dl := withDeadline(parent, time.Now(), time.Now().Add(time.Hour))
	assert.Equal(t, parent, ctx)
	assert.Nil(t, dl)
}

// TestLazyDeadlineDerivedContexts: a context derived from it (as an HTTP
// client derives one) ends when it is stopped.
func TestLazyDeadlineDerivedContexts(t *testing.T) {
	ctx, dl := withDeadline(context.Background(), time.Now(), time.Now().Add(time.Hour))
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	require.NoError(t, child.Err())
	dl.stop()
	<-child.Done()
	assert.ErrorIs(t, child.Err(), context.Canceled)
}

// TestLazyDeadlineConcurrentUse: Done, Err and Value from several goroutines
// while it is stopped (run under -race).
func TestLazyDeadlineConcurrentUse(t *testing.T) {
	ctx, dl := withDeadline(context.Background(), time.Now(), time.Now().Add(time.Hour))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				_ = ctx.Done()
			}
			_ = ctx.Err()
			_ = ctx.Value(ctxKey{})
		})
	}
	dl.stop()
	wg.Wait()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
}

// TestLazyDeadlineOfAnEndedParent: made on a parent that has ended, it has
// ended with the parent's error and cause, as context.WithDeadline's has.
func TestLazyDeadlineOfAnEndedParent(t *testing.T) {
	cause := errors.New("parent gave up")
	parent, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	d := time.Now().Add(time.Hour)
	ref, refStop := context.WithDeadline(parent, d)
	lz, dl := withDeadline(parent, time.Now(), d)
	assert.Equal(t, context.Cause(ref), context.Cause(lz))
	assert.Equal(t, ref.Err(), lz.Err())
	refStop()
	dl.stop()
	assert.Equal(t, context.Cause(ref), context.Cause(lz))
	assert.True(t, closed(lz.Done()))
}
