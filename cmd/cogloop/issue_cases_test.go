package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cases of issue 11 as a new user met them: each must look failed.

// A loop whose agents have no API key stops at the first call, exit 1, the
// error names the variable to set; no further pass runs.
func TestIssueMissingAPIKeyFailsAtOnce(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	code, out, errs := runCLI(t, "run", "../../examples/cognitive/workflow.yaml", "Is remote work more productive?", "--json")
	assert.Equal(t, 1, code, errs)
	var doc struct {
		Status string
		Errors []struct{ Path, Agent, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Equal(t, "failed", doc.Status)
	require.Len(t, doc.Errors, 1, "the first call's fatal error ends the run: %+v", doc.Errors)
	assert.Equal(t, "analysis_loop › iteration 1 › analyst", doc.Errors[0].Path)
	assert.Contains(t, doc.Errors[0].Message, "OPENAI_API_KEY")
	assert.Contains(t, errs, "OPENAI_API_KEY")

	code, out, errs = runCLI(t, "run", "../../examples/cognitive/workflow.yaml", "x")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "cogloop: run failed")
	assert.Contains(t, errs, "analysis_loop › iteration 1 › analyst")
}

// A local_llm loop agent whose server refuses connections fails the run.
func TestIssueRefusedModelURLFails(t *testing.T) {
	addr := nettest.ClosedAddr(t)
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    internal_workflow:
      orchestrator: {id: i, agents: [local]}
      agents:
        - {id: local, type: local_llm, provider: ollama, model: llama3, model_url: "http://`+addr+`", prompt: "x"}
`)
	code, out, errs := runCLI(t, "run", wf, "x")
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, addr)
	assert.Contains(t, errs, "l › iteration 1 › local")
}

// A prompt calling an undefined function: validate refuses it, and a run
// stops at that agent instead of answering with another agent's text.
func TestIssueUndefinedFunction(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [a, b, c]}
agents:
  - {id: a, type: scripted, prompt: "x", responses: [first]}
  - {id: b, type: scripted, prompt: "{{ get_inptu() }}", responses: [second]}
  - {id: c, type: scripted, prompt: "x", responses: [third]}
`)
	code, _, errs := runCLI(t, "validate", wf)
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, wf+`:4:41: agent "b": prompt template: undefined function get_inptu(); did you mean get_input?`)

	code, out, errs := runCLI(t, "run", wf, "x")
	assert.Equal(t, 2, code, errs)
	assert.Empty(t, out, "no other agent's text as the answer")
}

// A stop_when condition that cannot be evaluated stops the loop with an error.
func TestIssueConditionErrorFails(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    stop_when:
      - until: "previous_outputs.a.response.nosuchmethod()"
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: scripted, prompt: x, responses: {cycle: ["SCORE: 0.1"]}}
`)
	code, out, errs := runCLI(t, "run", wf, "x")
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, `cogloop: run failed: a loop stopped with stop_reason error; first error: l › iteration 1: stop_when until "previous_outputs.a.response.nosuchmethod()" at `+wf+`:7:16 cannot be evaluated`)
	assert.True(t, strings.HasPrefix(errs, "l: 1/5 passes · 0.10 · stopped: error · best pass 1\n"), errs)
	assert.Contains(t, lastLine(errs), "cogloop: run failed:", "the failure is the last line")
}
