package redis

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// stallProxy forwards loopback TCP to a Redis server until stall is set;
// then it swallows what the client sends (signalling on got) and answers
// nothing: a write that stalls.
type stallProxy struct {
	ln    net.Listener
	stall atomic.Bool
	got   chan struct{}
	once  sync.Once
}

func newStallProxy(t testing.TB, upstream string) *stallProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &stallProxy{ln: ln, got: make(chan struct{})}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				_ = c.Close()
				continue
			}
			t.Cleanup(func() { _ = c.Close(); _ = up.Close() })
			go func() { _, _ = io.Copy(c, up) }()
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					if p.stall.Load() {
						p.once.Do(func() { close(p.got) })
						continue
					}
					if _, err := up.Write(buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

// Ctrl-C while a Redis write stalls: the write returns with the
// cancellation at once, not at the socket's IO timeout (an hour here, so a
// write that waited for it would hang the test instead of passing).
func TestCancelDuringAStalledWrite(t *testing.T) {
	srv := redistest.Start(t)
	p := newStallProxy(t, srv.Addr())
	s := newStore(t, "redis://"+p.ln.Addr().String()+"/0", Options{IOTimeout: time.Hour, OpTimeout: -1, Retries: -1})
	p.stall.Store(true)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: map[string][]byte{"l": []byte(`1`)}})
	}()
	<-p.got // the write reached the server's socket, which answers nothing
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), `save checkpoint run "r"`)
	case <-time.After(time.Minute):
		t.Fatal("the stalled write did not return after its context was cancelled")
	}
}

// BenchmarkCancelDuringAStalledWrite measures how long a cancelled, stalled
// write takes to return (the bound: 0.5 s; it took 1.4 s with the
// default 1 s IO timeout). Reported as ms/cancel.
func BenchmarkCancelDuringAStalledWrite(b *testing.B) {
	srv := redistest.Start(b)
	var total time.Duration
	for range b.N {
		p := newStallProxy(b, srv.Addr())
		s := newStore(b, "redis://"+p.ln.Addr().String()+"/0", Options{})
		p.stall.Store(true)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}) }()
		<-p.got
		began := time.Now()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			b.Fatalf("want a cancellation, got %v", err)
		}
		total += time.Since(began)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/cancel")
}
