package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
)

// A real run (OpenAI's wire protocol on loopback) is recorded with every
// model call's request and reply; `cogloop script` turns it into a --script
// file that reproduces the run offline, secrets scrubbed; --replay answers
// the same run request by request and stops at the first request that
// changed, showing the changed prompt line.
func TestRecordScriptAndReplay(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch calls {
		case 1:
			agenttest.WriteChatReply(w, "Draft one.\nSCORE: 0.4", 10, 5)
		case 2:
			agenttest.WriteChatReply(w, "Draft two, key "+key+"\nSCORE: 0.9", 12, 6)
		default:
			agenttest.WriteChatReply(w, "Final answer.", 7, 3)
		}
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	t.Setenv(envRecordDir, filepath.Join(dir, "runs"))
	wf := writeFile(t, dir, "wf.yaml", replayWorkflow)
	code, stdout, errs := runCLI(t, "run", wf, "a topic", "--run-id", "rec1")
	require.Equal(t, exitOK, code, errs)
	require.Equal(t, "Final answer.\n", stdout)
	require.Equal(t, 3, calls)

	// The script: every reply in order per agent, with usage; the key scrubbed.
	code, script, errs := runCLI(t, "script", "rec1")
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, script, key, "secrets are never written into a script")
	assert.Contains(t, script, "Model replies of run rec1")
	assert.Regexp(t, `(?s)draft:\n\s+- text: \|-?\n\s+Draft one\.\n\s+SCORE: 0\.4\n\s+usage: \{prompt_tokens: 10, completion_tokens: 5\}\n\s+- text: .*Draft two.*final:\n\s+- text: Final answer\.`, script)
	scriptFile := writeFile(t, dir, "replies.yaml", script)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // nothing listens: offline from here on
	code, stdout, errs = runCLI(t, "run", wf, "a topic", "--script", scriptFile, "--no-record")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "Final answer.\n", stdout, "the script reproduces the run")

	// Replay: the same requests get the recorded replies.
	code, stdout, errs = runCLI(t, "run", wf, "a topic", "--replay", "rec1", "--no-record", "--json")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, stdout, `"output": "Final answer."`)
	assert.Contains(t, stdout, `"status": "ok"`)

	// One edited prompt line: the first call whose request differs fails
	// the run with the changed line.
	edited := writeFile(t, dir, "edited.yaml", strings.Replace(replayWorkflow, "Keep it short.", "Keep it very short.", 1))
	code, _, errs = runCLI(t, "run", edited, "a topic", "--replay", "rec1", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `replay of run rec1: call 1 of agent "draft"`)
	assert.Contains(t, errs, "the request differs from the recorded run")
	assert.Contains(t, errs, "-   Keep it short.")
	assert.Contains(t, errs, "+   Keep it very short.")
	assert.NotContains(t, errs, "- model:", "only what changed (and its context) is shown")

	// A different input changes the first request too.
	code, _, errs = runCLI(t, "run", wf, "another topic", "--replay", "rec1", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "-   Write about a topic.")
	assert.Contains(t, errs, "+   Write about another topic.")

	// Eval replays too, every line from the recording.
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "a topic", "assert": [{"type": "equals", "value": "Final answer."}]}`+"\n")
	code, out, errs := runCLI(t, "eval", wf, "--dataset", ds, "--replay", "rec1")
	assert.Equal(t, exitOK, code, out+errs)

	// More calls than recorded: a fatal error naming the agent.
	more := writeFile(t, dir, "more.yaml", strings.Replace(replayWorkflow, "score_threshold: 0.8", "score_threshold: 0.95", 1))
	code, _, errs = runCLI(t, "run", more, "a topic", "--replay", "rec1", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `agent "draft" makes call 3, but the run recorded 2`)
}

const replayWorkflow = `orchestrator: {id: replayed, agents: [improve, final]}
agents:
  - id: improve
    type: loop
    max_loops: 3
    score_threshold: 0.8
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    internal_workflow:
      orchestrator: {id: inner, agents: [draft]}
      agents:
        - id: draft
          type: openai-answer
          model: gpt-4o-mini
          prompt: |
            Write about {{ get_input() }}.
            Keep it short.
            Pass {{ loop_number }}.
  - id: final
    type: openai-answer
    model: gpt-4o-mini
    prompt: "Present: {{ previous_outputs.improve.response }}"
`

func TestScriptCommandProblems(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	code, _, errs := runCLI(t, "script")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "script takes one run, got 0 arguments")
	code, _, errs = runCLI(t, "script", "nope")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `cogloop script: `)
	assert.Contains(t, errs, `"nope"`)

	// The scripted agent type's calls are recorded as model calls too.
	wf := writeFile(t, dir, "wf.yaml", "orchestrator: {id: s, agents: [a]}\nagents:\n  - {id: a, type: scripted, responses: [\"hi\"]}\n")
	code, _, errs = runCLI(t, "run", wf, "x", "--run-id", "scripted")
	require.Equal(t, exitOK, code, errs)
	code, out, errs := runCLI(t, "script", "scripted")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "a:\n    - hi\n")

	// A run without model calls, and one recorded before requests were kept.
	writeFile(t, dir, "quiet.jsonl", `{"kind":"run.start","time":"2026-01-01T00:00:00Z"}`+"\n"+`{"kind":"run.end","time":"2026-01-01T00:00:01Z"}`+"\n")
	code, _, errs = runCLI(t, "script", "quiet")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "run quiet recorded no model calls")
	writeFile(t, dir, "old.jsonl", `{"kind":"model.call","agent":"w","response":"x","time":"2026-01-01T00:00:00Z"}`+"\n")
	code, _, errs = runCLI(t, "run", wf, "x", "--replay", "old", "--no-record")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `--replay: run old: the model calls of agent "w" were recorded without their requests`)
}

// A request longer than the record keeps is cut in the record, its digest
// still covers all of it: a change past the cut is still caught.
func TestReplayOfALongRequest(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	script := writeFile(t, dir, "s.yaml", "answer: [ok]\n")
	long := strings.Repeat("word ", 20_000) // 100 KB
	in := writeFile(t, dir, "in.txt", long+"END")
	code, _, errs := runCLI(t, "run", wf, "--input-file", in, "--run-id", "long", "--script", script)
	require.Equal(t, exitOK, code, errs)
	rec, err := os.ReadFile(filepath.Join(dir, "long.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(rec), `"request_cut":true`)
	assert.Less(t, len(rec), 2*100_000+70_000, "the request text is bounded (the prompt itself is in the call's event)")
	code, _, errs = runCLI(t, "run", wf, "--input-file", in, "--replay", "long", "--no-record")
	require.Equal(t, exitOK, code, errs)
	changed := writeFile(t, dir, "in2.txt", long+"FIN")
	code, _, errs = runCLI(t, "run", wf, "--input-file", changed, "--replay", "long", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, "the request differs from the recorded run")
}

func TestTextDiff(t *testing.T) {
	assert.Equal(t, "      a\n    - b\n    + B\n      c", textDiff("a\nb\nc", "a\nB\nc", 30))
	assert.Equal(t, "    + x\n      a", textDiff("a", "x\na", 30))
	d := textDiff(strings.Repeat("l\n", 100)+"old", strings.Repeat("l\n", 100)+"new", 30)
	assert.Equal(t, "      l\n    - old\n    + new", d, "the common head is one line of context")
	big := textDiff(strings.Repeat("a\n", 3000), strings.Repeat("b\n", 3000), 5)
	assert.Contains(t, big, "more lines)", "a long diff is cut")
	assert.Equal(t, 5, strings.Count(big, "\n"), "5 lines and the note")
}
