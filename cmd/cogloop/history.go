package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/internal/plainjson"
	"github.com/cogloop/cogloop/memory"
)

// cmdHistory prints (or clears, migrates, imports) a loop's persisted past_loops.
func cmdHistory(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var sf storeFlags
	var hf historyFlags
	var asJSON, clear, yes, importOrKa, migrate bool
	var limit int
	fs := newFlagSet("history", stderr)
	fs.StringVar(&sf.redisURL, "redis", "", "")
	fs.StringVar(&sf.namespace, "namespace", "", "")
	fs.StringVar(&hf.loop, "loop", "", "")
	fs.StringVar(&hf.workflow, "workflow", "", "")
	fs.StringVar(&hf.key, "key", "", "")
	fs.BoolVar(&asJSON, "json", false, "")
	fs.BoolVar(&clear, "clear", false, "")
	fs.BoolVar(&yes, "yes", false, "")
	fs.BoolVar(&importOrKa, "import-orka", false, "")
	fs.BoolVar(&migrate, "migrate", false, "")
	fs.IntVar(&limit, "limit", 0, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "history", err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "history", fmt.Errorf("history takes no arguments, got %q", pos[0]))
	}
	loopID, err := hf.id(migrate, importOrKa)
	if err != nil {
		return usageError(stderr, "history", err)
	}
	if sf.url() == "" {
		return usageError(stderr, "history", fmt.Errorf("history %w", errNeedsRedis))
	}
	store, err := sf.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection

	if migrate {
		return migrateHistory(ctx, store, hf, stdout, stderr)
	}
	if importOrKa {
		return importOrKaHistory(ctx, store, hf.loop, loopID, stdout, stderr)
	}
	if clear {
		return clearHistory(ctx, store, loopID, yes, stdout, stderr)
	}
	return printHistory(ctx, store, loopID, limit, asJSON, stdout, stderr)
}

// clearHistory deletes loop loopID's persisted history, once yes confirms it.
func clearHistory(ctx context.Context, store memory.Store, loopID string, yes bool, stdout, stderr io.Writer) int {
	if !yes {
		fmt.Fprintf(stderr, "cogloop: --clear deletes every persisted past_loops entry of loop %q; add --yes to confirm\n", loopID)
		return exitUsage
	}
	if err := store.ClearHistory(ctx, loopID); err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "cleared the history of loop %q\n", loopID)
	return exitOK
}

// printHistory prints the last limit (0: all) entries of loop loopID's
// persisted history, as a table or (asJSON) a JSON list.
func printHistory(ctx context.Context, store memory.Store, loopID string, limit int, asJSON bool, stdout, stderr io.Writer) int {
	entries, err := store.History(ctx, loopID, limit)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	rows := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		m, err := plainjson.Object(e.Data)
		if err == nil && m == nil {
			err = errors.New("it is null")
		}
		if err != nil {
			fmt.Fprintf(stderr, "cogloop: entry of run %q iteration %d is not a JSON object: %v\n", e.RunID, e.Iteration, err)
			return exitFailure
		}
		m["_run"] = e.RunID
		rows = append(rows, m)
	}
	if asJSON {
		return printJSON(stdout, stderr, "cogloop", rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(stdout, "loop %q has no persisted history\n", loopID)
		return exitOK
	}
	printHistoryTable(stdout, rows)
	return exitOK
}

// printHistoryTable prints one row per entry: run, loop_number and score first,
// then the other keys in name order, each cell cut to 40 characters.
func printHistoryTable(w io.Writer, rows []map[string]any) {
	keys := map[string]bool{}
	for _, r := range rows {
		for k := range r {
			keys[k] = true
		}
	}
	cols := []string{"_run", "loop_number", "score"}
	var rest []string
	for k := range keys {
		if k != "_run" && k != "loop_number" && k != "score" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	cols = append(cols, rest...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = strings.ToUpper(strings.TrimPrefix(c, "_"))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cell := strings.Join(strings.Fields(agents.Text(r[c])), " ")
			cells[i] = fault.Truncate(cell, 40)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// orkaImportRun is the run id of entries copied from OrKa's history.
const orkaImportRun = "orka-import"

// importOrKaHistory copies OrKa's history of loop (its key
// past_loops:<loop id> in the same Redis) into cogloop's history id, one
// entry per element, as iterations 1..n of run orka-import: importing again
// rewrites the same entries. A loop that already has history of its own is
// left alone.
func importOrKaHistory(ctx context.Context, store memory.Store, loop, id string, stdout, stderr io.Writer) int {
	oh, ok := store.(memory.OrKaHistory)
	if !ok {
		fmt.Fprintln(stderr, "cogloop: this store cannot read OrKa's history (it lives in Redis: use --redis)")
		return exitUsage
	}
	key := memory.OrKaPastLoopsKey(loop)
	data, found, err := oh.OrKaPastLoops(ctx, loop)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	if !found {
		fmt.Fprintf(stderr, "cogloop: there is no OrKa history of loop %q (key %s does not exist)\n", loop, key)
		return exitFailure
	}
	raw, err := memory.ParseOrKaPastLoops(data)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: key %s: %v\n", key, err)
		return exitFailure
	}
	have, err := store.History(ctx, id, 0)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	for _, e := range have {
		if e.RunID != orkaImportRun {
			fmt.Fprintf(stderr, "cogloop: loop %q already has cogloop history (run %q); import OrKa's only into an empty history (clear it first with --clear --yes)\n", loop, e.RunID)
			return exitFailure
		}
	}
	for i, r := range raw {
		if err := store.Append(ctx, id, memory.Entry{RunID: orkaImportRun, Iteration: i + 1, Data: r}); err != nil {
			fmt.Fprintf(stderr, "cogloop: %v\n", err)
			return exitFailure
		}
	}
	fmt.Fprintf(stdout, "imported %d past_loops entries of loop %q from OrKa's key %s\n", len(raw), loop, key)
	return exitOK
}
