package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

func TestQueueCommandsUsage(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.jsonl", "\"a\"\nnot json\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"submit"}, "submit needs a workflow file"},
		{[]string{"submit", queueWF, "x", "--dataset", bad}, "not both"},
		{[]string{"submit", queueWF, "--dataset", bad, "--redis", "redis://127.0.0.1:1/0"}, "bad.jsonl:2: the line is not a JSON value"},
		{[]string{"submit", queueWF, "x"}, "no Redis URL: pass --redis URL or set REDIS_URL"},
		{[]string{"status"}, "no Redis URL"},
		{[]string{"result"}, "result takes one run id"},
		{[]string{"worker", "--concurrency", "0"}, "--concurrency must be positive"},
		{[]string{"worker", "--queues", "a:x"}, `priority of "a" must be a positive integer`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errs := runCLI(t, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errs, tc.want)
		})
	}
}

// submit, status and result in process against a worker embedded in the
// test (the Go API), with scripted replies.
func TestSubmitStatusResult(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.URL())
	const scriptText = "writer: {cycle: [draft]}\nscorer: {cycle: [\"SCORE: 0.5\"]}\nfinal: {cycle: [done]}\n"
	script, err := scripted.Parse([]byte(scriptText), "r.yaml")
	require.NoError(t, err)
	w, err := queue.NewWorker(queue.Options{Redis: srv.URL(), Models: script})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); assert.NoError(t, w.Run(ctx, nil)) }()
	defer func() { cancel(); <-stopped }()

	code, out, errs := runCLI(t, "submit", queueWF, "essay", "--run-id", "s1", "--wait")
	require.Equal(t, exitOK, code, errs)
	first := out[strings.Index(out, "{"):]
	assert.Equal(t, "s1\n", out[:strings.Index(out, "{")], "the run id, then the document")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(first), &doc))
	assert.Equal(t, "ok", doc["status"])
	assert.Equal(t, "done", doc["output"])

	// The same document as run --json, but for the run id.
	replies := writeFile(t, t.TempDir(), "r.yaml", scriptText)
	code, out, errs = runCLI(t, "run", queueWF, "essay", "--script", replies, "--json", "--run-id", "s1", "-q", "--replace-run")
	require.Equal(t, exitOK, code, errs)
	var local map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &local))
	assert.Equal(t, untimed(local), untimed(doc))

	code, out, _ = runCLI(t, "status", "s1")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "s1: done (ok) on "+w.Name()+"; attempt 1; loop improve pass 3 of 3")

	code, out, _ = runCLI(t, "status")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "queue cogloop: 0 queued, 0 running, 0 retrying, 0 scheduled, 1 done, 0 archived")

	code, out, _ = runCLI(t, "result", "s1")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, first, out, "result prints the document submit --wait printed")

	code, _, errs = runCLI(t, "result", "nope")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "run nope: no such run in the queues")

	data := writeFile(t, t.TempDir(), "d.jsonl", "\"a\"\n\n{\"k\": 1}\n")
	code, out, errs = runCLI(t, "submit", queueWF, "--dataset", data, "--run-id", "ds", "--wait")
	assert.Equal(t, exitOK, code, errs)
	assert.Equal(t, "ds-1\nds-3\n", out)
	assert.Contains(t, errs, "2 runs ended: 2 ok, 0 failed")
}

// untimed drops the keys that hold times, which differ between two runs.
func untimed(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k != "duration_ms" && k != "timestamp" {
				out[k] = untimed(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = untimed(e)
		}
		return out
	}
	return v
}
