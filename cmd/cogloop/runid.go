package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cogloop/cogloop/agents/lease"
	"github.com/cogloop/cogloop/memory"
)

// refuseEarlierRun is an error when --run-id names a run that ran before:
// its run record exists, or its checkpoint is in the store. Starting it
// again would overwrite what that run left; --resume continues it and
// --replace-run starts it over on purpose.
func refuseEarlierRun(ctx context.Context, f runFlags, store memory.Store) error {
	id := f.runID
	var left string
	if d, err := recordDir(f.recordDir); err == nil {
		if _, err := os.Stat(d.File(id)); err == nil {
			left = "its run record " + d.File(id) + " exists"
		}
	}
	if left == "" && store != nil {
		_, ok, err := store.LoadCheckpoint(ctx, id)
		if err != nil {
			return fmt.Errorf("check run %q for an earlier checkpoint: %w", id, err)
		}
		if ok {
			left = "its checkpoint is in the store"
		}
	}
	if left == "" {
		return nil
	}
	// A run still live in another process is refused by its lease, which
	// names the holder: that says more than "an earlier run".
	if ls, ok := store.(memory.Leases); ok {
		l, err := lease.Take(ctx, ls, id, 0)
		if err != nil {
			return err
		}
		_ = l.Release(ctx) // a probe: the run takes the lease again when it starts
	}
	return fmt.Errorf("--run-id %s names an earlier run (%s); continue it with --resume %s, start it over with --replace-run (its record and checkpoint are replaced), or pick another --run-id", id, left, id)
}
