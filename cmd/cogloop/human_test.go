package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory/redis/redistest"
)

const humanCLIWF = `orchestrator: {id: approval, agents: [draft, ok, publish]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "draft {{ input }}"}
  - {id: ok, type: human, prompt: "Publish {{ previous_outputs.draft.response }}?"}
  - {id: publish, type: openai-answer, model: m, prompt: "publish {{ previous_outputs.ok.approved }}"}
`

const humanCLIScript = `draft: {cycle: ["a draft"]}
publish: {cycle: ["published"]}
`

// A run that reaches a human step exits 3 with the question and the
// command that answers it; runs --waiting lists it; bad answers are refused
// with exit 2 and change nothing; the answer continues the run to its end.
func TestAnswerCommand(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", humanCLIWF)
	script := writeFile(t, dir, "replies.yaml", humanCLIScript)

	code, out, errs := runCLI(t, "run", wf, "news", "--redis", srv.URL(), "--run-id", "h1", "--script", script)
	require.Equal(t, exitWaiting, code, errs)
	assert.Empty(t, out)
	assert.Contains(t, errs, "waiting for: ok (ok, approve): Publish a draft?")
	assert.Contains(t, errs, "cogloop answer h1 --approve or --reject [--comment C] --redis "+srv.URL())
	code, out, errs = runCLI(t, "show", "h1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "run h1 · workflow approval · waiting")
	assert.Contains(t, out, "waiting for: ok (ok, approve): Publish a draft?")

	code, out, errs = runCLI(t, "runs", "--waiting", "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "h1")
	assert.Contains(t, out, "Publish a draft?")
	code, out, errs = runCLI(t, "runs", "--waiting", "--redis", srv.URL(), "--json")
	require.Equal(t, 0, code, errs)
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &listed))
	require.Len(t, listed, 1)
	assert.Equal(t, "ok", listed[0]["agent"])

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong kind", []string{"h1", "--score", "0.5"}, "asks for approve (--approve or --reject), not score"},
		{"two answers", []string{"h1", "--approve", "--reject"}, "give one answer, not --approve and --reject"},
		{"no answer", []string{"h1", "--comment", "x"}, "give the answer"},
		{"unknown run", []string{"nope", "--approve"}, "does not wait for an answer"},
		{"bad json", []string{"h1", "--json", "{"}, "--json: not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCLI(t, append([]string{"answer", "--redis", srv.URL()}, tc.args...)...)
			assert.Equal(t, exitUsage, code, errs)
			assert.Contains(t, errs, tc.want)
		})
	}

	code, out, errs = runCLI(t, "answer", "h1", "--approve", "--comment", "fine", "--by", "ann", "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "published\n", out)
	assert.Contains(t, errs, "answer recorded for run h1")

	code, _, errs = runCLI(t, "answer", "h1", "--approve", "--redis", srv.URL())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "answered already")
	code, out, _ = runCLI(t, "runs", "--waiting", "--redis", srv.URL())
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no run waits")

	// the record tells who answered what
	code, out, errs = runCLI(t, "show", "h1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "run h1 · workflow approval · ok")
	assert.Contains(t, out, "questions to people")
	assert.Regexp(t, `ok\s+approve\s+APPROVED · fine\s+ann\s`, out)
	assert.Contains(t, out, "Publish a draft?")
}

const pauseCLIWF = `orchestrator: {id: paused, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.99
    internal_workflow:
      orchestrator: {id: inner, agents: [w, ok]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "write {{ loop_number }}"}
        - {id: ok, type: human, kind: score, prompt: "Rate {{ previous_outputs.w.response }}"}
`

// cogloop pause on a waiting run: its answer continues it, and it stops
// after the pass it finishes (exit 3, paused); --resume takes it on.
func TestPauseCommand(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	srv := redistest.Start(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", pauseCLIWF)
	script := writeFile(t, dir, "replies.yaml", "w: {cycle: [\"text\"]}\n")

	code, _, errs := runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--run-id", "p1", "--script", script)
	require.Equal(t, exitWaiting, code, errs)
	code, out, errs := runCLI(t, "pause", "p1", "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "pause requested")

	code, _, errs = runCLI(t, "answer", "p1", "--score", "3/10", "--redis", srv.URL())
	require.Equal(t, exitWaiting, code, errs)
	assert.Contains(t, errs, "run p1 paused; continue it with:")
	assert.Contains(t, errs, "--resume p1")

	code, _, errs = runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--resume", "p1", "--script", script)
	require.Equal(t, exitWaiting, code, errs)
	assert.Contains(t, errs, "waiting for: ok (l › iteration 2 › ok, score)")

	code, _, errs = runCLI(t, "pause", "nope", "--redis", srv.URL())
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "is not running")
	_ = filepath.Join
}

// --ask asks on the terminal and waits: a reply that is not an answer is
// asked again; the answer goes into the run. When stdin ends first, the run
// waits in its checkpoint file (exit 3) for cogloop answer.
func TestAskInline(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", humanCLIWF)
	script := writeFile(t, dir, "replies.yaml", humanCLIScript)
	old := stdin
	t.Cleanup(func() { stdin = old })
	stdin = strings.NewReader("maybe\ny\nlooks good\n")
	code, out, errs := runCLI(t, "run", wf, "news", "--ask", "--script", script)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "published\n", out)
	assert.Contains(t, errs, "ok asks (ok):\nPublish a draft?")
	assert.Contains(t, errs, `answer y or n, not "maybe"`)

	stdin = strings.NewReader("")
	code, out, errs = runCLI(t, "run", wf, "news", "--ask", "--script", script, "--run-id", "eof")
	assert.Equal(t, exitWaiting, code, out+errs)
	assert.Contains(t, errs, "cogloop answer eof --approve or --reject")
	code, out, errs = runCLI(t, "answer", "eof", "--approve")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "published\n", out)
}

// Without Redis a run's checkpoint is a file under the record directory, so
// the examples/approve walk-through works as its header says: the run waits
// (exit 3), runs --waiting lists it, each answer continues it from another
// process's view of the files, and a second answer is refused.
func TestAnswerWithoutRedis(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	t.Setenv("REDIS_URL", "")
	const wf, script = "../../examples/approve/workflow.yaml", "../../examples/approve/replies.yaml"

	code, _, errs := runCLI(t, "run", wf, "a release note for v2", "--script", script, "--run-id", "ap")
	require.Equal(t, exitWaiting, code, errs)
	assert.Contains(t, errs, "waiting for: judge (draft_loop › iteration 1 › judge, score)")
	assert.Contains(t, errs, "cogloop answer ap --score N [--comment C]")
	assert.NotContains(t, errs, "--redis", "no Redis is needed to answer")

	code, out, errs := runCLI(t, "runs", "--waiting")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Score this draft")

	code, _, errs = runCLI(t, "answer", "ap", "--score", "0.6", "--comment", "FIX: name the breaking change")
	require.Equal(t, exitWaiting, code, errs)
	assert.Contains(t, errs, "waiting for: judge (draft_loop › iteration 2 › judge, score)")

	code, _, errs = runCLI(t, "answer", "ap", "--score", "0.9")
	require.Equal(t, exitWaiting, code, errs)
	assert.Contains(t, errs, "waiting for: publish (publish, approve): Publish this draft (score 0.9)?")

	code, out, errs = runCLI(t, "answer", "ap", "--approve")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "APPROVED\n", out)

	code, _, errs = runCLI(t, "answer", "ap", "--approve")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "answered already")
	code, out, _ = runCLI(t, "runs", "--waiting")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no run waits")

	code, out, errs = runCLI(t, "show", "ap", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Apply these fixes: name the breaking change", "the person's comment is the next pass's lesson")
}
