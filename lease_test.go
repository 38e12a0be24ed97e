package cogloop_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// A process that lost its run's lease (another process took it over while
// this one was paused in pass 2) stops before its next model call: pass 2's
// checkpoint save is refused by the store, and pass 3 is never called. The
// run fails naming the lost lease and the holder that has it.
func TestLostLeaseStopsBeforeTheNextCall(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	store, err := redis.New(ctx, srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	defer func() { _ = store.Close() }()
	wf, err := cogloop.Parse([]byte(resumeWF), "resume.yaml")
	require.NoError(t, err)

	var mu sync.Mutex
	var prompts []string
	models := agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		mu.Lock()
		prompts = append(prompts, req.Prompt)
		n := len(prompts)
		mu.Unlock()
		if n == 2 { // another process takes the run over, as after this one's lease expired
			var held *memory.LeaseHeldError
			require.True(t, errors.As(store.TakeLease(ctx, "stolen", "probe", "", time.Minute), &held))
			require.NoError(t, store.TakeLease(ctx, "stolen", "thief/1/x", held.Holder, time.Minute))
		}
		return agents.Reply{Text: "SCORE: 0.1"}, nil
	})
	res, err := wf.Run(ctx, "x", cogloop.WithMemory(store), cogloop.WithRunID("stolen"), cogloop.WithCheckpoints(),
		cogloop.WithModels(modelsOf(models)))
	require.Error(t, err)
	assert.ErrorIs(t, err, memory.ErrLeaseLost)
	assert.Contains(t, err.Error(), `run "stolen" lost its lease`)
	assert.Contains(t, err.Error(), "thief/1/x")
	assert.Equal(t, cogloop.StatusFailed, res.Status)
	assert.Len(t, prompts, 2, "no model call after the lease was lost: %q", prompts)
}

type modelsOf agents.ModelFunc

func (m modelsOf) ModelFor(string) (agents.Model, error) { return agents.ModelFunc(m), nil }
