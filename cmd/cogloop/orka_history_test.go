package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orkaPastLoops is OrKa's persisted history of loop "learner" as OrKa writes
// it (orka/nodes/loop/persistence.py: memory_logger.set(f"past_loops:{node_id}",
// json.dumps(past_loops))): this value is CPython's json.dumps of two entries
// whose metadata values are strings, as OrKa renders them.
const orkaPastLoops = `[{"loop_number": "1", "score": "0.45", "timestamp": "2025-11-20T10:00:00.000001", "insights": "cite sources", "improvements": "add numbers", "mistakes": "too vague"}, {"loop_number": "2", "score": "0.7", "timestamp": "2025-11-20T10:00:05.000002", "insights": "numbers help", "improvements": "shorter", "mistakes": "None"}]`

// redisSet writes key as a plain Redis string, speaking RESP as any client
// (OrKa's redis-py) does.
func redisSet(t *testing.T, addr, key, value string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer func() { _ = c.Close() }() // the reply is read before
	cmd := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(key), key, len(value), value)
	_, err = c.Write([]byte(cmd))
	require.NoError(t, err)
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "+OK\r\n", line)
}

// A loop whose cogloop history is empty reads OrKa's past_loops:<loop id> from
// the same Redis (and says so); history --import-orka copies it for good, after
// which the run reads cogloop's history and warns no more.
func TestOrKaHistoryIsReadAndImported(t *testing.T) {
	srv := redistest.Start(t)
	redisSet(t, srv.Addr(), "past_loops:learner", orkaPastLoops)
	wf := writeFile(t, t.TempDir(), "wf.yaml", strings.Replace(persistWorkflow, "max_loops: 3", "max_loops: 1", 1))

	code, out, errs := runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--json", "--namespace", "n1")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, 1, strings.Count(errs, "read 2 past_loops entries from OrKa's key past_loops:learner"), errs)
	assert.Contains(t, errs, "cogloop history --workflow learn --loop learner --import-orka")
	var doc runDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	loop := doc.Outputs["learner"]
	assert.Equal(t, "pass 1 knows 2", loop["result"].(map[string]any)["worker"].(map[string]any)["formatted_prompt"])
	past := loop["past_loops"].([]any)
	require.Len(t, past, 3)
	assert.Equal(t, "cite sources", past[0].(map[string]any)["insights"])

	// Not yet imported: the cogloop history of namespace n2 is empty too.
	code, hist, _ := runCLI(t, "history", "--redis", srv.URL(), "--namespace", "n2", "--workflow", "learn", "--loop", "learner", "--json")
	require.Equal(t, 0, code)
	assert.JSONEq(t, "[]", hist)

	code, msg, errs := runCLI(t, "history", "--redis", srv.URL(), "--namespace", "n2", "--workflow", "learn", "--loop", "learner", "--import-orka")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, msg, `imported 2 past_loops entries of loop "learner" from OrKa's key past_loops:learner`)
	// Importing again rewrites the same two entries.
	code, _, errs = runCLI(t, "history", "--redis", srv.URL(), "--namespace", "n2", "--workflow", "learn", "--loop", "learner", "--import-orka")
	require.Equal(t, 0, code, errs)
	code, hist, _ = runCLI(t, "history", "--redis", srv.URL(), "--namespace", "n2", "--workflow", "learn", "--loop", "learner", "--json")
	require.Equal(t, 0, code)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(hist), &rows))
	require.Len(t, rows, 2)
	assert.Equal(t, "orka-import", rows[0]["_run"])
	assert.Equal(t, "add numbers", rows[0]["improvements"])
	assert.Equal(t, "0.7", rows[1]["score"], "OrKa's string values are kept as they are")

	code, _, errs = runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--namespace", "n2")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "OrKa's key", "cogloop's own history is read now")

	// A loop with history of its own is not overwritten.
	code, _, errs = runCLI(t, "history", "--redis", srv.URL(), "--namespace", "n2", "--workflow", "learn", "--loop", "learner", "--import-orka")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "already has cogloop history")

	// A key that is not OrKa's list is named and left alone.
	redisSet(t, srv.Addr(), "past_loops:learner", `{"not": "a list"}`)
	code, _, errs = runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--namespace", "n3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "key past_loops:learner is not OrKa's history")
}

// History written before histories were kept per workflow (under the loop id
// alone) is copied into a workflow's with --migrate: the run then reads it;
// migrating again doubles nothing; a second workflow migrates its own copy;
// the old history is deleted with --key --clear.
func TestHistoryMigrate(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	store, err := redis.New(ctx, srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	for i := 1; i <= 2; i++ {
		require.NoError(t, store.Append(ctx, "learner", memory.Entry{RunID: "old-run", LoopPath: "learner", Iteration: i,
			Data: []byte(fmt.Sprintf(`{"loop_number": %d, "score": 0.5, "insights": "old lesson %d"}`, i, i))}))
	}
	wfFile := writeFile(t, t.TempDir(), "wf.yaml", strings.Replace(persistWorkflow, "max_loops: 3", "max_loops: 1", 1))

	// Before the migration the workflow's history is empty, and history
	// --loop without --workflow says where the old one is.
	code, _, errs := runCLI(t, "history", "--redis", srv.URL(), "--loop", "learner")
	require.Equal(t, 2, code)
	assert.Contains(t, errs, "--key learner")
	assert.Contains(t, errs, "--migrate --workflow ID --loop learner")

	for range 2 {
		code, out, errs := runCLI(t, "history", "--redis", srv.URL(), "--migrate", "--workflow", "learn", "--loop", "learner")
		require.Equal(t, 0, code, errs)
		assert.Contains(t, out, `copied 2 past_loops entries of loop "learner" into the history of workflow "learn"`)
	}
	code, hist, errs := runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner", "--json")
	require.Equal(t, 0, code, errs)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(hist), &rows))
	require.Len(t, rows, 2, "migrating twice doubles nothing")
	assert.Equal(t, "old lesson 1", rows[0]["insights"])
	assert.Equal(t, "old-run", rows[0]["_run"])

	code, out, errs := runCLI(t, "run", wfFile, "x", "--redis", srv.URL(), "--json")
	require.Equal(t, 0, code, errs)
	var doc runDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "pass 1 knows 2", doc.Outputs["learner"]["result"].(map[string]any)["worker"].(map[string]any)["formatted_prompt"],
		"the run reads the migrated history")

	code, _, errs = runCLI(t, "history", "--redis", srv.URL(), "--migrate", "--workflow", "other", "--loop", "learner")
	require.Equal(t, 0, code, errs)
	code, _, errs = runCLI(t, "history", "--redis", srv.URL(), "--key", "learner", "--clear", "--yes")
	require.Equal(t, 0, code, errs)
	for wf, want := range map[string]int{"learn": 3, "other": 2} {
		code, hist, errs := runCLI(t, "history", "--redis", srv.URL(), "--workflow", wf, "--loop", "learner", "--json")
		require.Equal(t, 0, code, errs)
		require.NoError(t, json.Unmarshal([]byte(hist), &rows))
		assert.Len(t, rows, want, wf)
	}
	code, out, _ = runCLI(t, "history", "--redis", srv.URL(), "--migrate", "--workflow", "learn", "--loop", "learner")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "nothing to migrate")
}
