package cogloop

import (
	"context"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/lease"
)

// releaseBound bounds the release of a run's lease at its end: a stalled
// store must not hold up the exit (an unreleased lease expires by itself).
const releaseBound = 300 * time.Millisecond

func releaseLease(l *lease.Lease) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseBound)
	defer cancel()
	_ = l.Release(ctx)
}

// finishedPath marks a checkpoint whose run ended ok.
const finishedPath = "run:finished"

// finishCheckpoint marks the checkpoint of a run that ended ok and sets its
// TTL to keep (default [DefaultKeepFinished]).
func finishCheckpoint(ctx context.Context, run *agents.Run, keep time.Duration) error {
	if keep <= 0 {
		keep = DefaultKeepFinished
	}
	mark := map[string]any{"at": time.Now().UTC().Format(time.RFC3339), "keep_ns": keep}
	if err := run.Checkpoint.WithTTL(keep).Save(ctx, finishedPath, mark); err != nil {
		return fmt.Errorf("keep the checkpoint of finished run %q for %s: %w", run.ID, keep, err)
	}
	return nil
}
