package storetest

import (
	"context"
	"strconv"
	"sync"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

// testStates: one path of a checkpoint read and swapped atomically; of
// racing swaps from the same old value exactly one wins; a repeated swap
// (a retry after a lost reply) reports the state it set; nil deletes.
func testStates(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	ss, ok := s.(memory.States)
	if !ok {
		t.Skip("the store has no single-path states")
	}
	won, err := ss.SwapState(ctx, "r", "p", nil, []byte(`1`))
	require.NoError(t, err)
	assert.False(t, won, "no checkpoint: nothing swapped")
	_, found, err := ss.LoadState(ctx, "r", "p")
	require.NoError(t, err)
	assert.False(t, found)

	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("p", `"asked"`, "q", `2`)}))
	v, found, err := ss.LoadState(ctx, "r", "p")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, `"asked"`, string(v))

	const racers = 8
	wins := make([]bool, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := ss.SwapState(ctx, "r", "p", []byte(`"asked"`), []byte(`"answer `+strconv.Itoa(i)+`"`))
			assert.NoError(t, err)
			wins[i] = w
		}()
	}
	wg.Wait()
	n, winner := 0, -1
	for i, w := range wins {
		if w {
			n, winner = n+1, i
		}
	}
	require.Equal(t, 1, n, "exactly one racing swap wins: %v", wins)
	now := []byte(`"answer ` + strconv.Itoa(winner) + `"`)
	won, err = ss.SwapState(ctx, "r", "p", []byte(`"asked"`), now)
	require.NoError(t, err)
	assert.True(t, won, "the winner's retry reports its state")

	won, err = ss.SwapState(ctx, "r", "p", now, nil)
	require.NoError(t, err)
	assert.True(t, won)
	cp, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	require.True(t, ok)
	assert.NotContains(t, cp.State, "p", "a nil swap deletes the path")
	assert.Equal(t, `2`, string(cp.State["q"]), "other paths are kept")
	assert.Equal(t, "d", cp.Digest)
}
