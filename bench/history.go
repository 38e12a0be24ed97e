package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
)

// The persisted-history workloads (issue 18 item 7): a loop with
// persist_across_runs whose store already holds entries stored entries,
// written by earlier runs of the same loop. One run is a single pass of the
// three agents, so what grows with entries is loading the history; no
// prompt reads it.

// historyLoopID is the loop of historyWorkflow.
const historyLoopID = "improvement_loop"

// historyID is the id the loop's history is kept under: the loop of
// workflow bench (loopWorkflow's and historyWorkflow's id).
var historyID = memory.HistoryID("bench", historyLoopID)

// historyWorkflow is loopWorkflow's loop with persist_across_runs, one pass,
// a history of up to maxPast entries and prompts that do not read it.
func historyWorkflow(maxPast int) []byte {
	return []byte(fmt.Sprintf(`orchestrator: {id: bench, agents: [improvement_loop]}
agents:
  - id: improvement_loop
    type: loop
    max_loops: 1
    max_past_loops: %d
    score_threshold: 0.99
    score_extraction_pattern: %q
    persist_across_runs: true
%s    internal_workflow:
      orchestrator: {id: inner, agents: [critic, scorer]}
      agents:
%s%s`, maxPast, scorePattern, lessonPatterns,
		agentDef("critic", criticPrompt, modelSpec{}, 8),
		agentDef("scorer", scorerPrompt, modelSpec{}, 8)))
}

// historyStore fills store with entries entries of historyWorkflow's loop:
// one real run of loopWorkflow's loop under the same id writes ten (its
// default past_loops metadata and lessons), and copies of those under other
// run ids make up the rest, the way many earlier runs would have.
func historyStore(store memory.Store, entries int) error {
	seed, err := parse(loopWorkflow(10, true, modelSpec{}), "seed.yaml")
	if err != nil {
		return err
	}
	if err := runLoop(seed, 10, cogloop.WithMemory(store), cogloop.WithModels(newModels(0))); err != nil {
		return fmt.Errorf("seed the history: %w", err)
	}
	written, err := store.History(ctx, historyID, 0)
	if err != nil {
		return err
	}
	for i := len(written); i < entries; i++ {
		e := written[i%len(written)]
		e.RunID, e.At = fmt.Sprintf("seed-%d", i/len(written)), time.Time{}
		if err := store.Append(ctx, historyID, e); err != nil {
			return fmt.Errorf("seed the history: %w", err)
		}
	}
	got, err := store.History(ctx, historyID, 0)
	if err != nil {
		return err
	}
	if len(got) != entries {
		return fmt.Errorf("seed the history: the store holds %d entries, want %d", len(got), entries)
	}
	return nil
}

// cgRedisEnv carries the URL of the redis-server the -callgrind parent
// started to the child processes: a child of its own would stop valgrind
// (callgrind asserts on the SIGCHLD signal).
const cgRedisEnv = "COGLOOP_BENCH_REDIS_URL"

// historyRun is the callgrind workload: one run over entries stored entries
// (in memory, or in the parent's redis-server on loopback when onRedis) is
// entries units.
func historyRun(entries int, onRedis bool) func() (func() (int, error), error) {
	return func() (func() (int, error), error) {
		wf, err := parse(historyWorkflow(entries), "history.yaml")
		if err != nil {
			return nil, err
		}
		opts := memory.Options{HistoryCap: entries}
		var store memory.Store
		if onRedis {
			url := os.Getenv(cgRedisEnv)
			if url == "" {
				return nil, fmt.Errorf("$%s is not set: the -callgrind parent starts the redis-server", cgRedisEnv)
			}
			// Each child starts from an empty history.
			if store, err = redis.New(ctx, url, redis.Options{Options: opts}); err != nil {
				return nil, err
			}
			if err := store.ClearHistory(ctx, historyID); err != nil {
				return nil, err
			}
		} else if store, err = memory.NewInMemory(opts); err != nil {
			return nil, err
		}
		if err := historyStore(store, entries); err != nil {
			return nil, err
		}
		m := newModels(0)
		return func() (int, error) {
			res, err := wf.Run(ctx, task, cogloop.WithMemory(store), cogloop.WithModels(m))
			return entries, check(res, err, historyLoopID, 1)
		}, nil
	}
}
