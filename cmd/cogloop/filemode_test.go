package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reports and traces hold prompts and replies: they are created 0600 like run
// records, whatever the umask, and a file that existed 0644 is narrowed.
func TestReportAndTraceAreOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	out := t.TempDir()
	trace := filepath.Join(out, "trace.jsonl")
	page := filepath.Join(out, "run.html")
	again := filepath.Join(out, "again.html")
	require.NoError(t, os.WriteFile(again, []byte("old"), 0o644))
	require.NoError(t, os.Chmod(again, 0o644))

	code, _, errs := runCLI(t, "run", qualityWF, "x", "--script", qualityScript, "--run-id", "modes",
		"--trace", trace, "--report", page)
	require.Equal(t, exitOK, code, errs)
	code, _, errs = runCLI(t, "report", "modes", "-o", again)
	require.Equal(t, exitOK, code, errs)

	record := filepath.Join(dir, "modes.jsonl")
	for _, p := range []string{trace, page, again, record} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "%s is readable by its owner only", filepath.Base(p))
	}
}
