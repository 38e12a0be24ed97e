package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/storetest"
)

func TestInMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, opts memory.Options) memory.Store {
		s, err := memory.NewInMemory(opts)
		require.NoError(t, err)
		return s
	})
}

// Key TTLs run on the server's clock in Redis, so they are tested per store;
// here on the injected clock.
func TestInMemoryTTLs(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s, err := memory.NewInMemory(memory.Options{HistoryTTL: time.Hour, CheckpointTTL: 2 * time.Hour, Now: clock.Now})
	require.NoError(t, err)
	e := func(i int) memory.Entry { return memory.Entry{RunID: "r", Iteration: i, Data: []byte(`{}`)} }

	require.NoError(t, s.Append(ctx, "l", e(1)))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}))
	clock.Advance(50 * time.Minute)
	require.NoError(t, s.Append(ctx, "l", e(2)), "an append refreshes the history TTL")
	clock.Advance(50 * time.Minute)
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Len(t, got, 2, "100 minutes after the first append, 50 after the last")
	_, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.True(t, ok)

	clock.Advance(time.Hour)
	got, err = s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Empty(t, got, "an hour without appends expires the history")
	_, ok, err = s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.False(t, ok, "two hours without saves expire the checkpoint")
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "other"}), "an expired checkpoint no longer binds the digest")
}

func TestInMemoryEntryTTL(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s, err := memory.NewInMemory(memory.Options{Now: clock.Now})
	require.NoError(t, err)
	e := memory.Entry{RunID: "r", Iteration: 1, Data: []byte(`{}`), TTL: 10 * time.Minute}
	require.NoError(t, s.Append(ctx, "l", e))
	clock.Advance(9 * time.Minute)
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Len(t, got, 1)
	clock.Advance(time.Minute)
	got, err = s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Empty(t, got, "the entry's TTL (history_ttl) expires the history although the store has none")

	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", TTL: time.Hour}))
	clock.Advance(time.Hour)
	_, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.False(t, ok, "the save's TTL (--checkpoint-ttl) replaces the store's 7 days")
}

func TestInMemoryNeverExpires(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	s, err := memory.NewInMemory(memory.Options{CheckpointTTL: -1, Now: clock.Now})
	require.NoError(t, err)
	require.NoError(t, s.Append(ctx, "l", memory.Entry{RunID: "r", Iteration: 1, Data: []byte(`{}`)}))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d"}))
	clock.Advance(365 * 24 * time.Hour)
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Len(t, got, 1, "history has no TTL by default")
	_, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.True(t, ok, "a negative CheckpointTTL means never")
}

func TestNewInMemoryRejectsBadOptions(t *testing.T) {
	for _, opts := range []memory.Options{
		{Prefix: "a:b"}, {Prefix: "a*"}, {Namespace: "x y"}, {Namespace: "n:"}, {HistoryCap: -1}, {MemoryCap: -5},
	} {
		_, err := memory.NewInMemory(opts)
		assert.ErrorIs(t, err, memory.ErrInvalid, "%+v", opts)
	}
}

func BenchmarkInMemoryAppend(b *testing.B) {
	ctx := context.Background()
	s, err := memory.NewInMemory(memory.Options{})
	require.NoError(b, err)
	data := []byte(`{"loop_number":1,"score":0.5,"insights":"shorter prompts work"}`)
	i := 0
	for b.Loop() {
		i++
		if err := s.Append(ctx, "bench", memory.Entry{RunID: "r", Iteration: i, Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
