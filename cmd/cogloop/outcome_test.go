package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	summaryWF     = "testdata/summary/workflow.yaml"
	summaryScript = "testdata/summary/replies.yaml"
)

// The summary after the answer: per loop passes, scores, why it stopped, the
// best pass, agent errors, tokens and cost; then each failed agent's first error.
func TestRunSummaryGolden(t *testing.T) {
	code, out, errs := runCLI(t, "run", summaryWF, "slogan", "--script", summaryScript)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "Final <draft> & done\n", out)
	golden(t, "summary.golden", errs)

	code, _, errs = runCLI(t, "run", summaryWF, "slogan", "--script", summaryScript, "-q")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "improve:", "-q: no summary")
	assert.Contains(t, errs, "warning: improve › iteration 3: no score found", "warnings are still shown")
}

// -v prints each agent's reply as it finishes, prefixed with its path.
func TestVerbosePrintsReplies(t *testing.T) {
	code, _, errs := runCLI(t, "run", summaryWF, "slogan", "--script", summaryScript, "-v")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "improve › iteration 1 › writer│ draft <one>\n")
	assert.Contains(t, errs, "improve › iteration 2 › writer│ error: improve › iteration 2 › writer: scripted reply 2")
	assert.Contains(t, errs, "final│ Final <draft> & done\n")
	assert.Less(t, strings.Index(errs, "iteration 1 › critic│"), strings.Index(errs, "iteration 2 › writer│"), "in the order they finish")
}

// --json carries status and every agent error (also one the loop survived),
// and <, >, & come out as themselves.
func TestJSONStatusAndErrors(t *testing.T) {
	code, out, errs := runCLI(t, "run", summaryWF, "slogan", "--script", summaryScript, "--json")
	require.Equal(t, 0, code, errs)
	var doc struct {
		Status string `json:"status"`
		Errors []struct {
			Path, Agent, Message string
		} `json:"errors"`
		Output string `json:"output"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "ok", doc.Status)
	require.Len(t, doc.Errors, 1)
	assert.Equal(t, "improve › iteration 2 › writer", doc.Errors[0].Path)
	assert.Equal(t, "writer", doc.Errors[0].Agent)
	assert.Contains(t, doc.Errors[0].Message, "model overloaded")
	assert.Equal(t, "Final <draft> & done", doc.Output)
	assert.Contains(t, out, `"output": "Final <draft> & done"`, "no HTML escaping")
	assert.NotContains(t, errs, "improve:", "no summary under --json")
}

// A failed final agent: exit 1, nothing on stdout, the first error on stderr
// with its path; --json says "failed".
func TestFailedRunExitsOne(t *testing.T) {
	script := writeFile(t, t.TempDir(), "s.yaml", "writer: [draft]\neditor: [{error: \"model overloaded\"}]\n")
	code, out, errs := runCLI(t, "run", hello, "topic", "--script", script)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, `cogloop: run failed: final agent "editor" failed; first error: editor: scripted reply 1 of agent "editor" is an error: model overloaded`)
	assert.Contains(t, errs, "error: editor: scripted reply 1")

	code, out, _ = runCLI(t, "run", hello, "topic", "--script", script, "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, `"status": "failed"`)
}

// A loop that stops with stop_reason error fails the run, even though a later
// agent answered.
func TestLoopErrorFailsTheRun(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [l, after]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
    feedback: append
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: scripted, prompt: x, responses: {cycle: ["SCORE: 0.1"]}}
  - {id: after, type: scripted, prompt: x, responses: [fine]}
`)
	code, out, errs := runCLI(t, "run", wf, `{"task": "x"}`, "--json-input")
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "a loop stopped with stop_reason error")
	assert.True(t, strings.HasPrefix(errs, "l: 1/3 passes · 0.10 → (cut short) · stopped: error · best pass 1\n"), errs)
	assert.Contains(t, lastLine(errs), "cogloop: run failed:", "the failure is the last line")
	assert.Contains(t, errs, "\nerror: l › iteration 2: feedback: append joins text")
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help", "run"}, {"run", "--help"}, {"run", hello, "-h"}} {
		code, out, errs := runCLI(t, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Empty(t, errs)
		assert.True(t, strings.HasPrefix(out, "usage: cogloop run WORKFLOW.yaml [INPUT|-]"), "%v: %s", args, out)
		assert.Contains(t, out, "--strict")
	}
	code, out, _ := runCLI(t, "help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "version")
	code, out, _ = runCLI(t, "validate", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: cogloop validate")
	code, _, errs := runCLI(t, "help", "nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "nope"`)

	code, out, _ = runCLI(t, "version")
	assert.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.True(t, strings.HasPrefix(lines[0], "cogloop "))
	assert.True(t, strings.HasPrefix(lines[1], "revision "))
	assert.True(t, strings.HasPrefix(lines[2], "go1."), lines[2])
}

// INPUT '-' reads stdin; so does a missing INPUT when stdin is not a terminal.
func TestInputFromStdin(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", "orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: scripted, prompt: 'got {{ get_input() }}', responses: [ok]}\n")
	for _, args := range [][]string{{"run", wf, "-", "--json"}, {"run", wf, "--json"}} {
		stdin = strings.NewReader("piped text")
		code, out, errs := runCLI(t, args...)
		stdin = strings.NewReader("")
		require.Equal(t, 0, code, errs)
		assert.Contains(t, out, `"formatted_prompt": "got piped text"`, "%v", args)
	}
}

func TestInputAndScriptCaps(t *testing.T) {
	big := writeFile(t, t.TempDir(), "big.txt", strings.Repeat("x", maxInputBytes+1))
	code, _, errs := runCLI(t, "run", hello, "--input-file", big, "--script", helloScript)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--input-file "+big+" is larger than 1 MiB, the cap")

	stdin = bytes.NewReader(bytes.Repeat([]byte("x"), maxInputBytes+1))
	code, _, errs = runCLI(t, "run", hello, "-", "--script", helloScript)
	stdin = strings.NewReader("")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "the input on stdin is larger than 1 MiB, the cap")

	script := writeFile(t, t.TempDir(), "huge.yaml", "writer: ['"+strings.Repeat("x", maxScriptBytes)+"']\n")
	code, _, errs = runCLI(t, "run", hello, "x", "--script", script)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--script "+script+" is larger than 4 MiB, the cap")
}

// A script answering for an agent the workflow does not define is an error
// with its position and a did-you-mean.
func TestScriptNamingUnknownAgent(t *testing.T) {
	script := writeFile(t, t.TempDir(), "s.yaml", "writer: [a]\nwritr: [b]\neditor: [c]\nzzz: [d]\n")
	code, out, errs := runCLI(t, "run", hello, "x", "--script", script)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, script+`:2:1: script: agent "writr" is not defined by workflow "hello"; did you mean "writer"?`)
	assert.Contains(t, errs, script+`:4:1: script: agent "zzz" is not defined by workflow "hello" (its agents: writer, editor)`)

	// Agents of a loop's internal workflow count.
	code, _, errs = runCLI(t, "run", summaryWF, "x", "--script", summaryScript, "-q")
	assert.Equal(t, 0, code, errs)
}

// --strict on validate and run turns load warnings into errors.
func TestStrictFlag(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", "orchestrator: {id: w, strategy: parallel-ish, agents: [a]}\nagents:\n  - {id: a, type: scripted, prompt: x, responses: [ok, ok]}\n")
	code, _, errs := runCLI(t, "validate", wf)
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, "warning: ")
	code, _, errs = runCLI(t, "validate", wf, "--strict")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "strict")
	code, _, _ = runCLI(t, "run", wf, "x", "--strict")
	assert.Equal(t, 2, code)
	code, _, _ = runCLI(t, "run", wf, "x")
	assert.Equal(t, 0, code)
}

// --trace - writes the JSON lines to stderr, unescaped.
func TestTraceToStderr(t *testing.T) {
	code, _, errs := runCLI(t, "run", summaryWF, "x", "--script", summaryScript, "--trace", "-", "-q")
	require.Equal(t, 0, code, errs)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		n++
	}
	assert.Greater(t, n, 10)
	assert.Contains(t, errs, `"response":"draft <one>"`)
}

// A trace that cannot be written fails the run, naming the file.
func TestTraceWriteErrorFailsTheRun(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and /dev/full is missing: %v", err)
		}
		t.Skip("no /dev/full on this system (set CI=true to make this a failure)")
	}
	code, out, errs := runCLI(t, "run", hello, "x", "--script", helloScript, "--trace", "/dev/full")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, "write trace /dev/full: write /dev/full: no space left on device")
}

// A run stopped by a signal exits with the signal's code, in-process too.
func TestSignalCauseSetsTheExitCode(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalCause{sig})
		var out, errb bytes.Buffer
		code := run(ctx, []string{"run", hello, "x", "--script", helloScript}, &out, &errb)
		assert.Equal(t, want, code, errb.String())
		assert.Empty(t, out.String())
		assert.Contains(t, errb.String(), "context canceled", "the run stops before it starts (at its lease)")
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
