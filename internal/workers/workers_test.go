package workers

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// batch runs k functions on p that all wait until every one of them has
// started, so k workers are busy at once, and waits for them to end.
func batch(p *Pool, k int, ran *atomic.Int64) {
	var started, done sync.WaitGroup
	started.Add(k)
	done.Add(k)
	for range k {
		p.Go(func() {
			defer done.Done()
			started.Done()
			started.Wait()
			ran.Add(1)
		})
	}
	done.Wait()
}

// Workers are kept between batches: three batches of three concurrent
// functions, then one of five, start five workers, not fourteen; Close ends
// every one of them.
func TestPoolKeepsWorkersAndCloseEndsThem(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &Pool{}
	var ran atomic.Int64
	for range 3 {
		batch(p, 3, &ran)
		parked(p, 3)
	}
	batch(p, 5, &ran)
	parked(p, 5)
	assert.Equal(t, int64(14), ran.Load())
	p.mu.Lock()
	made := p.made
	p.mu.Unlock()
	assert.Equal(t, 5, made)
	p.Close()
	p.mu.Lock()
	assert.Empty(t, p.idle)
	p.mu.Unlock()
}

// parked returns once k workers of p are parked (a worker parks right after
// its function returns).
func parked(p *Pool, k int) {
	for {
		p.mu.Lock()
		n := len(p.idle)
		p.mu.Unlock()
		if n >= k {
			return
		}
		runtime.Gosched()
	}
}

// Close waits for a worker still running a function; after Close, Go starts
// plain goroutines; a nil pool does too.
func TestCloseWaitsForRunningWorkers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &Pool{}
	release, running := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	p.Go(func() {
		close(running)
		<-release
		finished.Store(true)
	})
	<-running
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	close(release)
	<-closed
	assert.True(t, finished.Load(), "Close returned before the running function ended")

	for _, pool := range []*Pool{p, nil} {
		done := make(chan struct{})
		pool.Go(func() { close(done) })
		<-done
	}
	assert.Equal(t, 1, p.made)
}

func TestContextCarriesThePool(t *testing.T) {
	assert.Nil(t, From(context.Background()))
	p := &Pool{}
	ctx, cancel := context.WithCancel(With(context.Background(), p))
	defer cancel()
	require.Same(t, p, From(ctx))
}

// A kept worker grows its stack when it starts and again only after a
// collection (which may shrink a parked worker's stack).
func TestWorkerGrowsItsStackAfterACollectionOnly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := &Pool{}
	defer p.Close()
	var ran atomic.Int64
	c0 := collections()
	for range 3 {
		batch(p, 1, &ran)
		parked(p, 1)
	}
	if collections() == c0 { // no collection ran meanwhile
		assert.Equal(t, int64(1), p.grows.Load())
	}
	before, c1 := p.grows.Load(), collections()
	for i := 0; collections() == c1 && i < 1000; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	require.NotEqual(t, c1, collections(), "the finalizer of the sentinel counts collections")
	batch(p, 1, &ran)
	assert.Equal(t, before+1, p.grows.Load())
}
