package chaos

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// healthy is the options of a store on a server with no fault: timeouts far
// beyond any loopback round trip on a loaded machine (issue 32 item 19), so
// only a fault ends an operation early.
func healthy(ns string) redis.Options {
	return redis.Patient(ns)
}

// fastFail makes a store give up quickly on a faulty server.
func fastFail(ns string) redis.Options {
	return redis.Options{Options: memory.Options{Namespace: ns}, DialTimeout: 100 * time.Millisecond,
		IOTimeout: 100 * time.Millisecond, OpTimeout: 300 * time.Millisecond, Retries: 1,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}
}

// failureText is everything a failed run says: its error, its agents'
// errors and the loop's.
func failureText(res *cogloop.Result, err error) string {
	var parts []string
	if err != nil {
		parts = append(parts, err.Error())
	}
	if res != nil {
		for id, msg := range res.Failed() {
			parts = append(parts, id+": "+msg)
		}
		if o, ok := res.Outputs.Get("l"); ok {
			if e, ok := o.Fields["error"].(string); ok {
				parts = append(parts, e)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// A fault between cogloop and Redis from pass 3 on: the run fails within its
// deadline with an error that names the server; once the fault is gone,
// --resume finishes the run with a history that has no gap, no duplicate
// and the reported scores; no goroutine is left behind.
func TestFaultProxy(t *testing.T) {
	srv := redistest.Start(t)
	wf, err := cogloop.Parse(fmt.Appendf(nil, chaosWorkflow, 400), "chaos.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		fault fault
	}{
		{"latency_beyond_read_timeout", latency},
		{"connection_resets", reset},
		{"black_hole", blackHole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := runtime.NumGoroutine()
			p := startProxy(t, srv.Addr())
			store, err := redis.New(context.Background(), p.URL(), fastFail(tc.name))
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			res, err := wf.Run(ctx, "x", cogloop.WithRunID("r"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
				cogloop.WithModels(parseScript(t, "0s")), cogloop.WithObserver(func(e event.Event) {
					if e.Kind == event.AgentStart && e.Node == "l › iteration 3 › writer" {
						p.set(tc.fault, 300*time.Millisecond)
					}
				}))
			require.NoError(t, ctx.Err(), "the run ended within its deadline")
			cancel()
			msg := failureText(res, err)
			require.NotEmpty(t, msg, "the run must fail")
			assert.Contains(t, msg, p.ln.Addr().String(), "the error names the server")
			assert.Contains(t, msg, "unavailable")
			require.NoError(t, store.Close())

			// The dead run's connections are gone; the server is reachable again.
			p.drop()
			p.set(pass, 0)
			resumeAndCheck(t, wf, p.URL(), tc.name)
			p.close()
			goroutinesBack(t, base)
		})
	}
}

// Redis killed with -9 during pass 3, with appendfsync always: every write
// it acknowledged survives the restart, the run fails with an error naming
// the server, and --resume finishes it with a history that has no gap, no
// duplicate and the reported scores.
func TestRedisKilledWithAOF(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	wf, err := cogloop.Parse(fmt.Appendf(nil, chaosWorkflow, 400), "chaos.yaml")
	require.NoError(t, err)
	base := runtime.NumGoroutine()
	store, err := redis.New(context.Background(), srv.URL(), fastFail("aof"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := wf.Run(ctx, "x", cogloop.WithRunID("r"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(parseScript(t, "0s")), cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.LoopIteration && e.Data["loop_number"] == 3 {
				srv.Kill() // pass 3's history entry is written, its checkpoint is not
			}
		}))
	require.NoError(t, ctx.Err(), "the run ended within its deadline")
	msg := failureText(res, err)
	require.NotEmpty(t, msg, "the run must fail")
	assert.Contains(t, msg, srv.Addr())
	require.NoError(t, store.Close())

	srv.Restart()
	resumeAndCheck(t, wf, srv.URL(), "aof")
	goroutinesBack(t, base)
}

// resumeAndCheck resumes run "r", which died in pass 3 after checkpointing
// passes 1 and 2, and checks the invariants of the finished run.
func resumeAndCheck(t *testing.T, wf *cogloop.Workflow, url, ns string) {
	t.Helper()
	store, err := redis.New(context.Background(), url, healthy(ns))
	require.NoError(t, err)
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	resumedAfter := -1
	res, err := wf.Run(context.Background(), "x", cogloop.WithResume("r", false), cogloop.WithMemory(store),
		cogloop.WithModels(parseScript(t, "0s")), cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.LoopStart {
				resumedAfter = e.Data["resumed_after"].(int)
			}
		}))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, 2, resumedAfter, "passes 1 and 2 were checkpointed; pass 3 runs again")
	assert.Equal(t, 5, loop.Fields["loops_completed"])
	checkHistory(t, store, "r", loop.Fields["past_loops"].([]any))
	assert.LessOrEqual(t, res.Usage.Total(), 400, "the budget holds")
}
