package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// -v prints one line per tool call (round, tool, arguments, result or error)
// under the calling agent's path; the summary counts the tool calls per pass
// of a loop; the run record keeps them per pass.
func TestToolCallsInVerboseAndSummary(t *testing.T) {
	dir := t.TempDir()
	records := t.TempDir()
	t.Setenv(envRecordDir, records)
	wf := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(`orchestrator: {id: t, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    internal_workflow:
      orchestrator: {id: i, agents: [asker]}
      agents:
        - {id: asker, type: openai-answer, model: m, prompt: "{{ input }}", tools: [lookup]}
        - {id: lookup, type: scripted, description: Look up., prompt: "{{ args.query }}", responses: {cycle: [known]}}
`), 0o600))
	script := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(script, []byte(`asker:
  - tool_calls: [{tool: lookup, args: {query: fig}}, {tool: lookup, args: {q: 1}}]
  - "SCORE: 0.5"
  - tool_calls: [{tool: lookup, args: {query: pear}}]
  - "SCORE: 0.95"
`), 0o600))
	code, out, errs := runCLI(t, "run", wf, "x", "--script", script, "-v")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "SCORE: 0.95\n", out)
	assert.Contains(t, errs, `l › iteration 1 › asker│ [tool round 1] lookup {"query":"fig"} → known (`)
	assert.Contains(t, errs, `l › iteration 1 › asker│ [tool round 1] lookup {"q":1} → error: the arguments do not match the tool's parameters`)
	assert.Regexp(t, `tool calls per pass 2 → 1\n`, errs, "one count per pass, as many as passes")

	ids := recordIDs(t, records)
	require.Len(t, ids, 1)
	code, out, errs = runCLI(t, "show", ids[0])
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `tool calls per pass 2 → 1\n`, out, "show counts a saved record's tool calls per pass")
	pass1, pass2, ok := strings.Cut(out, "tool calls of pass 2\n")
	require.True(t, ok, out)
	_, pass1, ok = strings.Cut(pass1, "tool calls of pass 1\n")
	require.True(t, ok, out)
	assert.Regexp(t, `^ +ROUND +AGENT +TOOL +ARGS +TIME +RESULT\n`, pass1)
	assert.Regexp(t, `\n +1 +asker +lookup +\{"query":"fig"\} +\S+ +known\n`, pass1)
	assert.Regexp(t, `\n +1 +asker +lookup +\{"q":1\} +\S+ +error: the arguments do not match the tool's parameters`, pass1)
	assert.Regexp(t, `\n +1 +asker +lookup +\{"query":"pear"\} +\S+ +known\n(checkpoint: [^\n]*\n)?$`, pass2)
}

// -v prints a line for each output_schema repair round: the violation sent
// back to the model.
func TestOutputRepairInVerbose(t *testing.T) {
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(`orchestrator: {id: t, agents: [judge]}
agents:
  - id: judge
    type: openai-answer
    model: m
    prompt: "{{ input }}"
    output_schema: {type: object, properties: {score: {type: number}}, required: [score]}
`), 0o600))
	script := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(script, []byte(`judge:
  - '{"score": "high"}'
  - '{"score": 0.8}'
`), 0o600))
	code, _, errs := runCLI(t, "run", wf, "x", "--script", script, "-v")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "judge│ [output_schema repair 1/2] at $.score: got string, want number")
}
