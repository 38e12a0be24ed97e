package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cogloop/cogloop/memory"
)

// historyFlags name a loop's persisted history: --workflow and --loop (the
// history kept per workflow), or --key (a history_key, or the id histories had
// before they were kept per workflow).
type historyFlags struct{ workflow, loop, key string }

// id is the store id the flags name, or a usage error.
func (h historyFlags) id(migrate, importOrKa bool) (string, error) {
	switch {
	case migrate && (h.workflow == "" || h.loop == "" || h.key != ""):
		return "", errors.New("history --migrate needs --workflow ID and --loop ID (and no --key): it copies the loop's history from before histories were kept per workflow into the workflow's")
	case h.key != "" && h.workflow != "":
		return "", errors.New("history takes --key KEY or --workflow ID --loop ID, not both")
	case h.key != "":
		if importOrKa && h.loop == "" {
			return "", errors.New("history --import-orka --key KEY needs --loop ID too: OrKa's key is past_loops:<loop id>")
		}
		return h.key, nil
	case h.loop == "":
		return "", errors.New("history needs --workflow ID --loop ID (or --key KEY for a loop with history_key)")
	case h.workflow == "":
		return "", fmt.Errorf("history --loop %s needs --workflow ID (the orchestrator id): a loop's history is kept per workflow; a history written before that is at --key %s, and --migrate --workflow ID --loop %s copies it into the workflow's", h.loop, h.loop, h.loop)
	}
	return memory.HistoryID(h.workflow, h.loop), nil
}

// migrateHistory copies the loop's history from its id before histories were
// kept per workflow (the loop id alone) into the workflow's
// (memory.MigrateHistory).
func migrateHistory(ctx context.Context, store memory.Store, h historyFlags, stdout, stderr io.Writer) int {
	n, err := memory.MigrateHistory(ctx, store, h.workflow, h.loop)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	if n == 0 {
		fmt.Fprintf(stdout, "loop %q has no history from before histories were kept per workflow: nothing to migrate\n", h.loop)
		return exitOK
	}
	fmt.Fprintf(stdout, "copied %d past_loops entries of loop %q into the history of workflow %q\n", n, h.loop, h.workflow)
	fmt.Fprintf(stdout, "the old history stays for other workflows to migrate; delete it with: cogloop history --key %s --clear --yes\n", h.loop)
	return exitOK
}
