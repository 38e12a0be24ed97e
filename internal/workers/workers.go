// Package workers owns the goroutines that run fork branches inside a loop:
// a [Pool] keeps them between the loop's passes, so a branch's stack, grown
// once through the render path, is not grown (and copied, frame by frame)
// again on every pass. The loop that made a pool closes it before its Run
// returns, so no goroutine outlives the run.
package workers

import (
	"context"
	"sync"
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
}

// Go runs fn on an idle worker, or on a new one. After Close it starts a
// plain goroutine.
func (p *Pool) Go(fn func()) {
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
	for fn := range ch {
		growStack() // again: the collector may have shrunk the stack of a parked worker
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
