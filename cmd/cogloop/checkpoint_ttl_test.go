package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// After a run ended ok its checkpoint keeps --keep-finished (default 24h),
// then expires; --checkpoint-ttl is the TTL while a run goes on or after it
// failed. A non-positive value of either is a usage error.
func TestCheckpointTTLFlag(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", persistWorkflow)
	keys, err := memory.NewKeyspace(memory.DefaultPrefix, memory.DefaultNamespace)
	require.NoError(t, err)

	for i, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, cogloop.DefaultKeepFinished},
		{[]string{"--keep-finished", "90m"}, 90 * time.Minute},
		{[]string{"--checkpoint-ttl", "300h"}, cogloop.DefaultKeepFinished},
	} {
		id := fmt.Sprintf("ttl-%d", i)
		code, _, errs := runCLI(t, append([]string{"run", wf, "x", "--redis", srv.URL(), "--run-id", id}, tc.args...)...)
		require.Equal(t, 0, code, errs)
		key, err := keys.Key(memory.KindCheckpoint, id)
		require.NoError(t, err)
		got, err := srv.PTTL(key)
		require.NoError(t, err)
		assert.True(t, got > tc.want-time.Minute && got <= tc.want, "PTTL %v, want about %v", got, tc.want)
	}

	code, _, errs := runCLI(t, "run", wf, "x", "--checkpoint-ttl", "-1h")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--checkpoint-ttl must be positive")
	code, _, errs = runCLI(t, "run", wf, "x", "--keep-finished", "0s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--keep-finished must be positive")
}

// show reports the size of a run's checkpoint; runs --prune deletes the
// checkpoints of runs that ended ok, and show then says there is none.
func TestShowCheckpointSizeAndPrune(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", persistWorkflow)
	recs := filepath.Join(dir, "runs")
	code, _, errs := runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--run-id", "pruned", "--record-dir", recs)
	require.Equal(t, 0, code, errs)

	code, out, errs := runCLI(t, "show", "pruned", "--record-dir", recs, "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `checkpoint: [0-9.]+ [kM]?B in \d+ parts, finished, saved `, out)

	code, out, errs = runCLI(t, "runs", "--prune", "--record-dir", recs, "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "deleted the checkpoints of 1 finished runs (of 1 recorded")
	keys, err := memory.NewKeyspace(memory.DefaultPrefix, memory.DefaultNamespace)
	require.NoError(t, err)
	key, err := keys.Key(memory.KindCheckpoint, "pruned")
	require.NoError(t, err)
	ttl, err := srv.PTTL(key)
	require.NoError(t, err)
	assert.Negative(t, int64(ttl), "the key is gone")

	code, out, errs = runCLI(t, "show", "pruned", "--record-dir", recs, "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "checkpoint: none (expired, pruned, or never saved)")

	// Without --redis, --prune works on the checkpoint files beside the records.
	code, out, errs = runCLI(t, "runs", "--prune", "--record-dir", recs)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "finished runs (of 1 recorded")
}

// A run id whose checkpoint is in the store names an earlier run: starting
// it again without a record to tell is refused, naming the run and the way
// out; --replace-run starts it over (issue 32 item 15).
func TestRunIDOfAnEarlierCheckpointIsRefused(t *testing.T) {
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", persistWorkflow)
	code, _, errs := runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--run-id", "again", "--no-record")
	require.Equal(t, exitOK, code, errs)

	code, _, errs = runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--run-id", "again", "--no-record")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--run-id again names an earlier run (its checkpoint is in the store); continue it with --resume again")

	code, _, errs = runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--run-id", "again", "--no-record", "--replace-run")
	require.Equal(t, exitOK, code, errs)
	code, _, errs = runCLI(t, "run", wf, "x", "--replace-run")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--replace-run replaces the run named by --run-id")
}
