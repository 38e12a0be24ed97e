package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

// ConcurrentAppends appends, all at once, perRun entries of one run per
// store to the history of loop "shared", and checks that the history (read
// through the first store) holds every entry once and each run's in order.
// One store given several times is several appenders on one client; several
// stores on one server are several processes.
func ConcurrentAppends(t *testing.T, stores []memory.Store, perRun int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, len(stores))
	for r, s := range stores {
		wg.Go(func() {
			run := fmt.Sprintf("run-%d", r)
			for i := 1; i <= perRun; i++ {
				if err := s.Append(ctx, "shared", entry(run, "shared", i, fmt.Sprintf(`{"run":%d,"i":%d}`, r, i))); err != nil {
					errs[r] = err
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	got, err := stores[0].History(ctx, "shared", 0)
	require.NoError(t, err)
	require.Len(t, got, len(stores)*perRun, "every run lands all its entries")
	next := map[string]int{}
	for _, e := range got {
		next[e.RunID]++
		assert.Equal(t, next[e.RunID], e.Iteration, "run %s: entries in its own order, each once", e.RunID)
	}
	assert.Len(t, next, len(stores))
}
