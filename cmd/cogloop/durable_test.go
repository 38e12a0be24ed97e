package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// submit and worker read Redis's persistence settings at start: with
// neither AOF nor RDB on they warn loudly, and under --strict they refuse;
// a server with AOF on gets no warning.
func TestQueueWarnsWithoutPersistence(t *testing.T) {
	bare := redistest.Start(t, "--appendonly", "no", "--save", "")
	code, _, errs := runCLI(t, "submit", queueWF, "x", "--redis", bare.URL(), "--run-id", "volatile")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `cogloop submit: WARNING: redis keeps nothing on disk (appendonly no, save ""): a restart of the server loses every queued run`)
	assert.Contains(t, errs, "--appendonly yes")

	code, _, errs = runCLI(t, "submit", queueWF, "x", "--redis", bare.URL(), "--run-id", "volatile-strict", "--strict")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "redis keeps nothing on disk")
	assert.Contains(t, errs, "an error under --strict")

	code, _, errs = runCLI(t, "worker", "--redis", bare.URL(), "--strict")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "cogloop worker: redis keeps nothing on disk")

	durable := redistest.Start(t, "--appendonly", "yes")
	code, _, errs = runCLI(t, "submit", queueWF, "x", "--redis", durable.URL(), "--run-id", "kept", "--strict")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "nothing on disk")
}

// A Redis without persistence restarted: the runs submitted to it are gone,
// and `cogloop status` says so (exit 1) instead of showing nothing.
func TestStatusReportsVanishedRuns(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	srv := redistest.Start(t, "--appendonly", "no", "--save", "")
	for _, id := range []string{"lost-1", "lost-2"} {
		code, _, errs := runCLI(t, "submit", queueWF, "x", "--redis", srv.URL(), "--run-id", id)
		require.Equal(t, 0, code, errs)
	}
	code, out, errs := runCLI(t, "status", "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "vanished")
	assert.Contains(t, out, "2 queued")

	srv.Kill() // nothing on disk: the queue is empty again
	srv.Restart()
	code, out, _ = runCLI(t, "status", "--redis", srv.URL())
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, "vanished: 2 runs submitted from here are unknown to the queue (lost-1, lost-2): its Redis lost them (restarted without persistence?); submit them again")
	assert.NotContains(t, out, "no queues yet")

	code, out, _ = runCLI(t, "status", "--redis", srv.URL(), "--json")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, out, `"vanished": [
    "lost-1",
    "lost-2"
  ]`)
}
