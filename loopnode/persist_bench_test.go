package loopnode_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// delayedModels answers like benchModels after a fixed latency.
type delayedModels struct {
	benchModels
	delay time.Duration
}

func (m delayedModels) ModelFor(id string) (agents.Model, error) {
	inner, _ := m.benchModels.ModelFor(id)
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		if m.delay > 0 {
			t := time.NewTimer(m.delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return agents.Reply{}, ctx.Err()
			}
		}
		return inner.Generate(ctx, req)
	}), nil
}

// BenchmarkPersistedIteration runs the 3-agent loop of BenchmarkLoopIteration with
// persist_across_runs on a real redis-server, against the same loop with the
// in-memory store, at zero and at 5 ms model latency. It reports Redis round
// trips per iteration (target 1) and ns per iteration; the ratio of the
// redis/memory pairs is the persistence overhead.
func BenchmarkPersistedIteration(b *testing.B) {
	srv := redistest.Start(b)
	src := strings.Replace(benchLoop, "score_threshold: 0.99", "score_threshold: 0.99\n    persist_across_runs: true", 1)
	wf, err := cogloop.Parse([]byte(src), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, delay := range []time.Duration{0, 5 * time.Millisecond} {
		for _, backend := range []string{"memory", "redis", "redis+checkpoints"} {
			b.Run(backend+"/latency="+delay.String(), func(b *testing.B) {
				var store memory.Store
				var rs *redis.Store
				if backend == "memory" {
					store, err = memory.NewInMemory(memory.Options{})
				} else {
					rs, err = redis.New(context.Background(), srv.URL(), redis.Patient(""))
					store = rs
				}
				if err != nil {
					b.Fatal(err)
				}
				defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
				models := delayedModels{benchModels: benchModels{
					"improver": "It shows how a big problem splits into small ones.",
					"critic":   "It lacks a concrete example.",
					"scorer":   "SCORE: 0.62",
				}, delay: delay}
				opts := []cogloop.RunOption{cogloop.WithModels(models), cogloop.WithMemory(store)}
				if strings.HasSuffix(backend, "checkpoints") {
					opts = append(opts, cogloop.WithCheckpoints())
				}
				var before uint64
				if rs != nil {
					before = rs.RoundTrips()
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := wf.Run(context.Background(), "Explain recursion", opts...); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				iterations := float64(b.N * 10)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/iterations, "ns/iteration")
				if rs != nil {
					// Each run also loads the history once at its start.
					b.ReportMetric(float64(rs.RoundTrips()-before-uint64(b.N))/iterations, "roundtrips/iteration")
				}
			})
		}
	}
}
