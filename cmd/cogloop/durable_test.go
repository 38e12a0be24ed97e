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
