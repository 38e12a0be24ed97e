package cogloop_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// testdata/history_compat/redis.json is what main (c8ceda1, before the
// one-pass history reader) stored in Redis for workflow.yaml: the four
// past_loops entries of a finished run and a run interrupted after its first
// pass, that run's checkpoint, and the critic prompts main rendered when it
// resumed the interrupted run and when a fresh run loaded the history. The
// prompts print every loaded entry's loop number, score, label and lessons
// (non-ASCII, quotes, escaped <, > and &), so a value read back differently
// (an int as a float, an escape) changes them.
type historyFixture struct {
	PastLoops      []string          `json:"past_loops"`
	PastLoopIDs    []string          `json:"past_loop_ids"`
	Checkpoint     map[string]string `json:"checkpoint"`
	ResumedPrompts []string          `json:"resumed_prompts"`
	FreshPrompts   []string          `json:"fresh_prompts"`
}

// criticPrompts answers like the fixture's generator and keeps the critic's
// prompts.
type criticPrompts struct {
	mu      sync.Mutex
	prompts []string
}

func (m *criticPrompts) ModelFor(id string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		if id != "critic" {
			return agents.Reply{Text: "Draft answer.\nSCORE: 0.62", Usage: spend.Usage{PromptTokens: 5, CompletionTokens: 2}}, nil
		}
		m.mu.Lock()
		m.prompts = append(m.prompts, req.Prompt)
		m.mu.Unlock()
		return agents.Reply{Text: "It shows the café example \"quoted\" with <b>tags</b> & ampersands — naïve ✓.\nIt lacks a tab\there and an emoji 😀.\nIt overlooked the base case.",
			Usage: spend.Usage{PromptTokens: 7, CompletionTokens: 3}}, nil
	}), nil
}

func TestHistoryAndCheckpointsStoredByMainStillLoad(t *testing.T) {
	raw, err := os.ReadFile("testdata/history_compat/redis.json")
	require.NoError(t, err)
	var fx historyFixture
	require.NoError(t, json.Unmarshal(raw, &fx))
	require.Len(t, fx.PastLoops, 4)
	srv := redistest.Start(t)
	ctx := context.Background()
	opt, err := goredis.ParseURL(srv.URL())
	require.NoError(t, err)
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 10*time.Second, 30*time.Second, 30*time.Second // a loaded machine
	client := goredis.NewClient(opt)
	t.Cleanup(func() { _ = client.Close() })
	keys, err := memory.NewKeyspace("cogloop", "default")
	require.NoError(t, err)
	loopKeys, err := keys.LoopKeys("l")
	require.NoError(t, err)
	cpKey, err := keys.Key(memory.KindCheckpoint, "fixture-2")
	require.NoError(t, err)
	load := func(t *testing.T) {
		require.NoError(t, client.FlushAll(ctx).Err())
		for i, e := range fx.PastLoops {
			require.NoError(t, client.RPush(ctx, loopKeys[0], e).Err())
			require.NoError(t, client.RPush(ctx, loopKeys[1], fx.PastLoopIDs[i]).Err())
		}
		require.NoError(t, client.HSet(ctx, cpKey, fx.Checkpoint).Err())
	}
	store, err := redis.New(ctx, srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	wf, err := cogloop.Load("testdata/history_compat/workflow.yaml")
	require.NoError(t, err)

	t.Run("resume the checkpointed run", func(t *testing.T) {
		load(t)
		m := &criticPrompts{}
		_, err := wf.Run(ctx, "Explain recursion", cogloop.WithMemory(store), cogloop.WithModels(m), cogloop.WithResume("fixture-2", false))
		require.NoError(t, err)
		require.Equal(t, fx.ResumedPrompts, m.prompts)
	})
	t.Run("a fresh run loads the history once it is migrated", func(t *testing.T) {
		load(t)
		m := &criticPrompts{}
		_, err := wf.Run(ctx, "Explain recursion", cogloop.WithMemory(store), cogloop.WithModels(m), cogloop.WithRunID("fixture-3"))
		require.NoError(t, err)
		require.Equal(t, "Review Explain recursion: ", m.prompts[0], "histories are kept per workflow: the old one is not read")

		load(t)
		n, err := memory.MigrateHistory(ctx, store, wf.ID(), "l")
		require.NoError(t, err)
		require.Equal(t, 4, n)
		m = &criticPrompts{}
		_, err = wf.Run(ctx, "Explain recursion", cogloop.WithMemory(store), cogloop.WithModels(m), cogloop.WithRunID("fixture-3"))
		require.NoError(t, err)
		require.Equal(t, fx.FreshPrompts, m.prompts)
	})
}
