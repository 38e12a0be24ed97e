package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/memory"
)

// storeBound bounds what show and runs --prune wait for the store.
const storeBound = 10 * time.Second

// pruneFinished deletes the checkpoints of the recorded runs that ended ok
// (the runs a resume cannot continue) and prints how many.
func pruneFinished(ctx context.Context, d records.Dir, sf storeFlags, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(ctx, storeBound)
	defer cancel()
	store, err := sf.open(ctx, stderr)
	if err == nil && store == nil {
		err = fmt.Errorf("no checkpoint store: %s cannot be used", sf.checkpointDir())
	}
	if err != nil {
		fmt.Fprintf(stderr, "cogloop runs: %v\n", err)
		return exitFailure
	}
	defer func() { _ = store.Close() }()
	list, err := d.List(0)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop runs: %v\n", err)
		return exitFailure
	}
	n := 0
	for _, s := range list {
		if !s.Complete || s.Status != "ok" {
			continue // a failed or unfinished run may still be resumed
		}
		if err := store.DeleteCheckpoint(ctx, s.RunID); err != nil {
			fmt.Fprintf(stderr, "cogloop runs: prune: %v\n", err)
			return exitFailure
		}
		n++
	}
	fmt.Fprintf(stdout, "deleted the checkpoints of %d finished runs (of %d recorded in %s)\n", n, len(list), d.Path)
	if sw, ok := store.(interface {
		Sweep(context.Context) (int, error)
	}); ok {
		// The checkpoint files: expired ones are removed too (Redis expires its keys itself).
		gone, err := sw.Sweep(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop runs: prune: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(stdout, "removed %d expired checkpoint files from %s\n", gone, sf.checkpointDir())
	}
	return exitOK
}

// checkpointLine describes the run's checkpoint in the store, if a store is
// given: its size, or that there is none.
func checkpointLine(ctx context.Context, runID string, sf storeFlags, stderr io.Writer) string {
	ctx, cancel := context.WithTimeout(ctx, storeBound)
	defer cancel()
	store, err := sf.open(ctx, io.Discard)
	if err != nil {
		return fmt.Sprintf("checkpoint: unknown (%v)", err)
	}
	if store == nil {
		return ""
	}
	defer func() { _ = store.Close() }()
	cp, ok, err := store.LoadCheckpoint(ctx, runID)
	switch {
	case err != nil:
		return fmt.Sprintf("checkpoint: unknown (%v)", err)
	case !ok:
		return "checkpoint: none (expired, pruned, or never saved)"
	}
	return "checkpoint: " + checkpointSize(cp)
}

func checkpointSize(cp memory.Checkpoint) string {
	size := len(cp.Digest)
	for path, v := range cp.State {
		size += len(path) + len(v)
	}
	state := "in progress or resumable"
	if _, ok := cp.State["run:finished"]; ok {
		state = "finished"
	}
	return fmt.Sprintf("%s in %d parts, %s, saved %s", humanize.Bytes(uint64(size)), len(cp.State), state,
		cp.UpdatedAt.Local().Format("2006-01-02 15:04:05"))
}
