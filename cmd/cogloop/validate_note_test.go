package main

import (
	"fmt"
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

// A loop whose score pattern can match two agents' output and that has no
// score_from gets a hint from validate, and the hint stays advice under
// --strict (issue 30 item 5): a best guess must not fail a writer+scorer loop.
func TestValidateHintsAtAScoreTwoAgentsCanGive(t *testing.T) {
	const loop = `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
%s    internal_workflow:
      orchestrator: {id: i, agents: [writer, judge]}
      agents:
        - {id: writer, type: scripted, responses: ["%s"]}
        - {id: judge, type: scripted, responses: ["SCORE: 0.2"]}
`
	write := func(extra, draft string) string {
		wf := filepath.Join(t.TempDir(), "loop.yaml")
		require.NoError(t, os.WriteFile(wf, []byte(fmt.Sprintf(loop, extra, draft)), 0o600))
		return wf
	}
	wf := write("", "A draft. SCORE: 1.0")
	for _, args := range [][]string{{"validate", wf}, {"validate", "--strict", wf}} {
		code, out, errs := runCLI(t, args...)
		assert.Equal(t, 0, code, "%v: %s", args, errs)
		assert.Contains(t, out, "ok")
		assert.Contains(t, errs, "hint: "+wf+":3:5: agent \"l\": the score can come from \"writer\", \"judge\"")
		assert.Contains(t, errs, "reads the first agent in order that matches (writer)")
		assert.Contains(t, errs, "score_from: [judge]")
		assert.NotContains(t, errs, "warning:")
	}

	// score_from names the scorer; a draft the pattern cannot read: no hint.
	for _, wf := range []string{write("    score_from: [judge]\n", "A draft. SCORE: 1.0"), write("", "A draft.")} {
		code, _, errs := runCLI(t, "validate", "--strict", wf)
		assert.Equal(t, 0, code, errs)
		assert.NotContains(t, errs, "hint:")
	}
}

// Two model agents under OrKa's default score patterns: the queue example's
// writer and scorer get the hint, naming the scorer for score_from.
func TestValidateHintsAtDefaultPatternsOverTwoModels(t *testing.T) {
	wf := "../../examples/queue/workflow.yaml"
	code, _, errs := runCLI(t, "validate", "--strict", wf)
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `hint: `+wf+`:6:5: agent "improve": the score can come from "writer", "scorer": OrKa's default score patterns`)
	assert.Contains(t, errs, "score_from: [scorer]")
}
