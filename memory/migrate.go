package memory

import (
	"context"
	"fmt"
)

// MigrateHistory copies loop's history from the id histories had before they
// were kept per workflow (the loop id alone) into workflow's
// ([HistoryID](workflow, loop)), and returns how many entries it copied. Each
// entry keeps its run, loop path, iteration, data and time; an entry already
// in workflow's history (the same run, path and iteration) is not added
// again, so migrating twice changes nothing, and a migration that failed half
// way is finished by running it again. The old history stays: several
// workflows may have shared it, and each migrates its own copy; ClearHistory
// of the loop id deletes it after.
func MigrateHistory(ctx context.Context, h History, workflow, loop string) (int, error) {
	if workflow == "" {
		return 0, fmt.Errorf("migrate the history of loop %q: the workflow id is empty: %w", loop, ErrInvalid)
	}
	old, err := h.History(ctx, loop, 0)
	if err != nil {
		return 0, fmt.Errorf("migrate the history of loop %q: read it: %w", loop, err)
	}
	to := HistoryID(workflow, loop)
	for i, e := range old {
		e.TTL = 0
		if err := h.Append(ctx, to, e); err != nil {
			return i, fmt.Errorf("migrate the history of loop %q: run %q iteration %d: %w (migrating again finishes it)", loop, e.RunID, e.Iteration, err)
		}
	}
	return len(old), nil
}
