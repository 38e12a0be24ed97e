package loopnode_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// countingStore counts the bytes of state and history a run writes.
type countingStore struct {
	memory.Store
	bytes atomic.Int64
	saves atomic.Int64
}

func (c *countingStore) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	c.saves.Add(1)
	for p, s := range cp.State {
		c.bytes.Add(int64(len(p) + len(s)))
	}
	return c.Store.SaveCheckpoint(ctx, runID, cp)
}

func (c *countingStore) Append(ctx context.Context, loopID string, e memory.Entry) error {
	c.bytes.Add(int64(len(e.Data)))
	return c.Store.Append(ctx, loopID, e)
}

const bytesLoop = `orchestrator: {id: bytes, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: %d
    score_threshold: 0.99
    persist_across_runs: true
    stop_when: [{stagnation: {repeats: 1000}}, {stable_output: {of: w, threshold: 1.0}}]
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "pass {{ loop_number }}"}
`

// bigReplies answers every call with size bytes of text (different per call)
// and a score.
type bigReplies struct {
	size  int
	calls atomic.Int64
}

func (m *bigReplies) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		n := m.calls.Add(1)
		tail := fmt.Sprintf(" call %d SCORE: 0.5", n)
		return agents.Reply{Text: strings.Repeat("x", m.size-len(tail)) + tail}, nil
	}), nil
}

// Checkpoints are linear in the work: N passes of S-byte replies write at
// most 3·N·S bytes plus a small constant (64 KiB), counted at the store
// interface (in-memory) and on the wire (redis-server's total_net_input_bytes).
func TestCheckpointBytesLinear(t *testing.T) {
	const size = 10_000
	srv := redistest.Start(t)
	for _, n := range []int{50, 200} {
		wf, err := cogloop.Parse(fmt.Appendf(nil, bytesLoop, n), "bytes.yaml")
		require.NoError(t, err)
		bound := int64(3*n*size + 64<<10)

		t.Run(fmt.Sprintf("store/%d", n), func(t *testing.T) {
			inner, err := memory.NewInMemory(memory.Options{})
			require.NoError(t, err)
			store := &countingStore{Store: inner}
			res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithRunID("bytes"),
				cogloop.WithCheckpoints(), cogloop.WithModels(&bigReplies{size: size}))
			require.NoError(t, err)
			loop, _ := res.Outputs.Get("l")
			require.Equal(t, n, loop.Fields["loops_completed"])
			assert.LessOrEqual(t, store.bytes.Load(), bound, "%d passes of %d bytes", n, size)
			assert.GreaterOrEqual(t, store.bytes.Load(), int64(n*size), "every pass's reply is checkpointed once")
			t.Logf("%d passes: %d bytes, %.2f × reply size per pass", n, store.bytes.Load(), float64(store.bytes.Load())/float64(n*size))
		})

		t.Run(fmt.Sprintf("redis/%d", n), func(t *testing.T) {
			store, err := redis.New(context.Background(), srv.URL(), redis.Patient(fmt.Sprintf("bytes%d", n)))
			require.NoError(t, err)
			defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
			before, err := srv.NetInputBytes()
			require.NoError(t, err)
			_, err = wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithRunID("bytes"),
				cogloop.WithCheckpoints(), cogloop.WithModels(&bigReplies{size: size}))
			require.NoError(t, err)
			after, err := srv.NetInputBytes()
			require.NoError(t, err)
			sent := after - before
			assert.LessOrEqual(t, sent, bound, "%d passes of %d bytes", n, size)
			t.Logf("%d passes: %d bytes to redis-server, %.2f × reply size per pass", n, sent, float64(sent)/float64(n*size))
		})
	}
}
