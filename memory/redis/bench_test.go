package redis

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// BenchmarkAppend measures a history append against a real redis-server
// and reports round trips per append (the target is 1: one EVALSHA that
// dedups, appends, trims and sets the TTL).
func BenchmarkAppend(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	s := newStore(b, srv.URL(), Options{Options: memory.Options{HistoryCap: 20}})
	data := []byte(`{"loop_number":1,"score":0.5,"timestamp":"2026-01-01T00:00:00","insights":"shorter prompts work","improvements":"","mistakes":""}`)
	if err := s.Append(ctx, "bench", memory.Entry{RunID: "warm-up", Iteration: 1, Data: data}); err != nil {
		b.Fatal(err) // loads the script
	}
	before := s.RoundTrips()
	i := 0
	for b.Loop() {
		i++
		if err := s.Append(ctx, "bench", memory.Entry{RunID: "r", Iteration: i, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.RoundTrips()-before)/float64(i), "roundtrips/op")
}

// BenchmarkHistory measures loading the last 20 entries of a loop.
func BenchmarkHistory(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	s := newStore(b, srv.URL(), Options{})
	for i := 1; i <= 20; i++ {
		if err := s.Append(ctx, "bench", memory.Entry{RunID: "r", Iteration: i, Data: []byte(`{"loop_number":1,"score":0.5}`)}); err != nil {
			b.Fatal(err)
		}
	}
	before := s.RoundTrips()
	n := 0
	for b.Loop() {
		n++
		got, err := s.History(ctx, "bench", 20)
		if err != nil || len(got) != 20 {
			b.Fatalf("history: %d entries, %v", len(got), err)
		}
	}
	b.ReportMetric(float64(s.RoundTrips()-before)/float64(n), "roundtrips/op")
}
