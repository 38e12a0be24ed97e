package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A loop without max_loops is a note in plain validate (exit 0) and an error
// under --strict (exit 2), with its position (issue 17 item 9).
func TestValidateNotesAMissingMaxLoops(t *testing.T) {
	wf := filepath.Join(t.TempDir(), "loop.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(`orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents: [{id: a, type: scripted, responses: [x]}]
`), 0o600))
	code, out, errs := runCLI(t, "validate", wf)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "ok")
	assert.Contains(t, errs, "note: "+wf+":3:5: agent \"l\": no max_loops")
	assert.NotContains(t, errs, "warning:")

	code, _, errs = runCLI(t, "validate", "--strict", wf)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, wf+":3:5: agent \"l\": no max_loops")
	assert.Contains(t, errs, "an error under strict mode")
}
