package cogloop_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const outageWorkflow = `orchestrator: {id: outage, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 4
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: scripted, prompt: "pass {{ loop_number }}", responses: {cycle: ["SCORE: 0.3"]}}
`

// Redis goes down after iteration 1. Restarted quickly, the run survives through
// the store's bounded retries; left down, the loop stops with stop_reason error
// and says which iteration was not persisted. Either way the history holds each
// iteration at most once.
func TestRedisOutageBetweenIterations(t *testing.T) {
	for _, restart := range []bool{true, false} {
		name := map[bool]string{true: "restarted", false: "stays down"}[restart]
		t.Run(name, func(t *testing.T) {
			srv := redistest.Start(t)
			store, err := redis.New(context.Background(), srv.URL(), redis.Patient(""))
			require.NoError(t, err)
			defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
			wf, err := cogloop.Parse([]byte(outageWorkflow), "outage.yaml")
			require.NoError(t, err)

			var wg sync.WaitGroup
			observe := func(e event.Event) {
				if e.Kind == event.LoopIteration && e.Data["loop_number"] == 1 {
					srv.Stop()
					if restart {
						wg.Add(1)
						go func() {
							defer wg.Done()
							time.Sleep(200 * time.Millisecond)
							srv.Restart()
						}()
					}
				}
			}
			res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithObserver(observe))
			wg.Wait()
			loop, _ := res.Outputs.Get("l")
			if restart {
				require.NoError(t, err)
				assert.Equal(t, "max_loops", loop.Fields["stop_reason"], loop.Fields["error"])
				assert.Equal(t, 4, loop.Fields["loops_completed"])
			} else {
				require.ErrorIs(t, err, cogloop.ErrRunFailed, "a loop that stopped with an error fails the run")
				assert.Contains(t, err.Error(), "iteration 2 was not persisted")
				assert.Equal(t, cogloop.StatusFailed, res.Status)
				assert.Equal(t, "error", loop.Fields["stop_reason"])
				assert.Contains(t, loop.Fields["error"], "iteration 2 was not persisted")
				assert.Contains(t, loop.Fields["error"], srv.Addr())
				assert.Len(t, loop.Fields["past_loops"], 1, "the unpersisted iteration is not reported as history")
				srv.Restart()
			}
			entries, err := store.History(context.Background(), memory.HistoryID("outage", "l"), 0)
			require.NoError(t, err)
			seen := map[int]bool{}
			for _, e := range entries {
				assert.False(t, seen[e.Iteration], "iteration %d stored twice", e.Iteration)
				seen[e.Iteration] = true
			}
			if restart {
				assert.Len(t, entries, 4)
			} else {
				assert.Len(t, entries, 1)
			}
		})
	}
}
