// Package workers owns the goroutines that run fork branches inside a loop:
// a [Pool] keeps them between the loop's passes, so a branch's stack, grown
// once through the render path, is not grown (and copied, frame by frame)
// again on every pass. The loop that made a pool closes it before its Run
// returns, so no goroutine outlives the run.
//
// # Imports
//
// It imports internal/perf only.
package workers

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cogloop/cogloop/internal/perf"
)

// Pool runs functions on goroutines it keeps after they finish. The zero
// value is ready; a nil *Pool starts a goroutine per function. It is safe for
// concurrent use.
type Pool struct {
	mu     sync.Mutex
	idle   []chan func() // parked workers, the most recently used last
	closed bool
	wg     sync.WaitGroup // running workers
	made   int            // workers started, for tests
	grows  atomic.Int64   // stack growths of kept workers, for tests
}

// Go runs fn on an idle worker, or on a new one. After Close it starts a
// plain goroutine.
func (p *Pool) Go(fn func()) {
	if perf.Off(perf.Pool) {
		go fn()
		return
	}
	if p == nil {
		goGrown(fn)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		goGrown(fn)
		return
	}
	if k := len(p.idle); k > 0 {
		ch := p.idle[k-1]
		p.idle = p.idle[:k-1]
		p.mu.Unlock()
		ch <- fn // buffered: the worker is parked on it
		return
	}
	p.wg.Add(1)
	p.made++
	p.mu.Unlock()
	ch := make(chan func(), 1)
	ch <- fn
	go p.work(ch)
}

// work runs what arrives on ch, parking between functions, until the pool
// is closed.
func (p *Pool) work(ch chan func()) {
	defer p.wg.Done()
	grownAt := ^uint64(0)
	for fn := range ch {
		// Again after a collection, which may have shrunk the stack of a
		// parked worker; not otherwise (the growth clears 12 KB of frame).
		if c := collections(); c != grownAt {
			growStack()
			p.grows.Add(1)
			grownAt = c
		}
		fn()
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, ch)
		p.mu.Unlock()
	}
}

// Close stops the workers and waits until every one has returned; a worker
// still running a function returns when the function does.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, ch := range idle {
		close(ch)
	}
	p.wg.Wait()
}

// goGrown runs fn on a new goroutine whose stack is grown first.
func goGrown(fn func()) {
	go func() {
		growStack()
		fn()
	}()
}

// growStack grows a new goroutine's stack to what a branch agent needs while
// the stack is still shallow: grown on the way through the render path, it
// would be copied several times, frame by frame (a third of a fork/join
// loop's instructions).
//
//go:noinline
func growStack() {
	var frame [BranchStack]byte
	touch(frame[:])
}

// BranchStack is about the stack a branch agent's render needs.
const BranchStack = 12 << 10

//go:noinline
func touch(b []byte) { b[len(b)-1] = 1 }

// gcCycles counts the collector's cycles as far as workers need: a sentinel
// object's finalizer adds one and arms the next sentinel. A finalizer runs
// after its cycle, so a worker may run once on a stack shrunk a moment
// before; that only costs the growth the check would have saved.
var (
	gcCycles   atomic.Uint64
	sentinelOn sync.Once
)

// sentinel is large enough not to share a tiny allocation block, whose
// finalizers may never run.
type sentinel struct{ _ [32]byte }

func armSentinel() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		gcCycles.Add(1)
		armSentinel()
	})
}

// collections is the count of collections seen so far.
func collections() uint64 {
	sentinelOn.Do(armSentinel)
	return gcCycles.Load()
}

type poolKey struct{}

// With returns ctx carrying p, for the forks run under ctx.
func With(ctx context.Context, p *Pool) context.Context {
	return context.WithValue(ctx, poolKey{}, p)
}

// From returns the pool ctx carries, or nil.
func From(ctx context.Context) *Pool {
	p, _ := ctx.Value(poolKey{}).(*Pool)
	return p
}
