package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

const persistWorkflow = `orchestrator: {id: learn, agents: [learner]}
agents:
  - id: learner
    type: loop
    max_loops: 3
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [worker]}
      agents:
        - id: worker
          type: scripted
          prompt: "pass {{ loop_number }} knows {{ get_past_loops() | length }}"
          responses: {cycle: ["SCORE: 0.5"]}
`

type runDoc struct {
	RunID   string                    `json:"run_id"`
	Outputs map[string]map[string]any `json:"outputs"`
}

// History persisted in Redis grows across CLI runs, is capped at max_past_loops
// (default 20) when loaded, and loop numbers restart in each run, as in OrKa.
func TestPersistAcrossRuns(t *testing.T) {
	srv := redistest.Start(t)
	wf := writeFile(t, t.TempDir(), "wf.yaml", persistWorkflow)
	for run := 1; run <= 8; run++ {
		code, out, errs := runCLI(t, "run", wf, "x", "--redis", srv.URL(), "--json")
		require.Equal(t, 0, code, errs)
		var doc runDoc
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		loop := doc.Outputs["learner"]
		past := loop["past_loops"].([]any)
		assert.Len(t, past, min(3*run, 20), "run %d", run)
		last := past[len(past)-1].(map[string]any)
		assert.Equal(t, 3.0, last["loop_number"], "numbering restarts per run")
		first := loop["result"].(map[string]any)["worker"].(map[string]any)["formatted_prompt"]
		assert.Equal(t, fmt.Sprintf("pass 3 knows %d", min(3*(run-1)+2, 20)), first, "run %d", run)
	}
	code, out, errs := runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner", "--json")
	require.Equal(t, 0, code, errs)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	assert.Len(t, rows, 24, "the store keeps more than a run loads")

	code, out, _ = runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "RUN")
	assert.Contains(t, out, "LOOP_NUMBER")

	code, _, errs = runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner", "--clear")
	assert.Equal(t, 2, code, "clear asks for --yes")
	assert.Contains(t, errs, "--yes")
	code, _, _ = runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner", "--clear", "--yes")
	require.Equal(t, 0, code)
	code, out, _ = runCLI(t, "history", "--redis", srv.URL(), "--workflow", "learn", "--loop", "learner")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no persisted history")
}

func TestRedisUnreachableNamesTheAddress(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", persistWorkflow)
	code, _, errs := runCLI(t, "run", wf, "x", "--redis", "redis://127.0.0.1:1/0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "127.0.0.1:1")
}

// Without Redis, --resume reads the checkpoint files; a run that has none is
// named (TestRunIDResumeHintWithoutRedis resumes one that has).
func TestResumeWithoutRedisNeedsACheckpoint(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	code, _, errs := runCLI(t, "run", hello, "x", "--resume", "r1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `resume run "r1": no checkpoint for this run`)
}

const resumeWorkflow = `orchestrator: {id: long, agents: [long_loop, summary]}
agents:
  - id: long_loop
    type: loop
    max_loops: 5
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [worker]}
      agents:
        - id: worker
          type: openai-answer
          model: m
          prompt: "pass {{ loop_number }} after {{ get_past_loops() | length }}"
  - id: summary
    type: openai-answer
    model: m
    prompt: "{{ previous_outputs.long_loop.loops_completed }} loops, final {{ previous_outputs.long_loop.final_score }}"
`

// A run killed with SIGKILL while iteration 3 of 5 waits on the model resumes
// from its checkpoint: entries 1..5 with no gap or duplicate, and the model is
// not called again for iterations 1–2 (the resume script only has replies for
// 3–5, so any repeated call would shift every answer).
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := redistest.Start(t)
	bin := clibin.Path(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", resumeWorkflow)
	s1 := writeFile(t, dir, "s1.yaml", "worker:\n  - \"one SCORE: 0.1\"\n  - \"two SCORE: 0.2\"\n  - {text: \"never\", delay: 5m}\n")
	errPath := filepath.Join(dir, "first.stderr")
	errFile, err := os.Create(errPath)
	require.NoError(t, err)
	defer func() { _ = errFile.Close() }() // read-only

	first := exec.Command(bin, "run", wf, "topic", "--redis", srv.URL(), "--run-id", "r-kill", "--script", s1)
	first.Stderr = errFile
	require.NoError(t, first.Start())
	// Wait until the checkpoint says iteration 2 is complete: the run is then in
	// (or entering) iteration 3, whose reply never comes.
	store, err := redis.New(context.Background(), srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	deadline := time.Now().Add(60 * time.Second)
	for {
		cp, ok, err := store.LoadCheckpoint(context.Background(), "r-kill")
		var state struct {
			Loops int `json:"loops"`
		}
		if err == nil && ok && json.Unmarshal(cp.State["loop:long_loop"], &state) == nil && state.Loops == 2 {
			break
		}
		if time.Now().After(deadline) {
			msg, _ := os.ReadFile(errPath)
			t.Fatalf("the first run never finished iteration 2: %s", msg)
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, first.Process.Kill())
	_ = first.Wait()

	s2 := writeFile(t, dir, "s2.yaml", "worker:\n  - \"three SCORE: 0.3\"\n  - \"four SCORE: 0.4\"\n  - \"five SCORE: 0.5\"\nsummary: [\"done\"]\n")
	second := exec.Command(bin, "run", wf, "topic", "--redis", srv.URL(), "--resume", "r-kill", "--script", s2, "--json")
	var out, errb bytes.Buffer
	second.Stdout, second.Stderr = &out, &errb
	require.NoError(t, second.Run(), errb.String())
	var doc runDoc
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	loop := doc.Outputs["long_loop"]
	assert.Equal(t, 5.0, loop["loops_completed"])
	past := loop["past_loops"].([]any)
	require.Len(t, past, 5)
	for i, p := range past {
		e := p.(map[string]any)
		assert.Equal(t, float64(i+1), e["loop_number"])
		assert.InDelta(t, 0.1*float64(i+1), e["score"], 1e-9)
	}
	assert.Equal(t, "pass 5 after 4", loop["result"].(map[string]any)["worker"].(map[string]any)["formatted_prompt"])
	assert.Equal(t, "done", doc.Outputs["summary"]["response"])

	code, hist, _ := runCLI(t, "history", "--redis", srv.URL(), "--workflow", "long", "--loop", "long_loop", "--json")
	require.Equal(t, 0, code)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(hist), &rows))
	var numbers []float64
	for _, r := range rows {
		numbers = append(numbers, r["loop_number"].(float64))
	}
	assert.Equal(t, []float64{1, 2, 3, 4, 5}, numbers, "persisted history has no gap or duplicate")

	// The same run cannot be resumed against a changed file without consent.
	changed := writeFile(t, dir, "wf.yaml", strings.Replace(resumeWorkflow, "max_loops: 5", "max_loops: 6", 1))
	code, _, errs := runCLI(t, "run", changed, "topic", "--redis", srv.URL(), "--resume", "r-kill", "--script", s2)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "workflow changed")
	assert.Contains(t, errs, "the flag for that is --allow-config-change", "issue 32 item 17: the refusal names the flag")
	code, _, errs = runCLI(t, "run", changed, "topic", "--redis", srv.URL(), "--resume", "r-kill", "--script", s2, "--allow-config-change")
	assert.Equal(t, 0, code, errs)

	code, _, errs = runCLI(t, "run", wf, "topic", "--redis", srv.URL(), "--resume", "no-such-run")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no checkpoint")
}

// onLine is a writer that calls fn with each complete line written to it, in
// the writer's goroutine (the run's, for trace lines on stderr).
type onLine struct {
	buf  bytes.Buffer
	part []byte
	fn   func(string)
}

func (w *onLine) Write(p []byte) (int, error) {
	w.buf.Write(p)
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		w.fn(string(w.part[:i]))
		w.part = w.part[i+1:]
	}
	return len(p), nil
}

// Redis stopping mid-run: the loop stops with stop_reason error and the run
// fails with exit 1, naming the pass that was not persisted.
func TestRedisStopMidRunFails(t *testing.T) {
	srv := redistest.Start(t)
	wf := writeFile(t, t.TempDir(), "wf.yaml", persistWorkflow)
	var out bytes.Buffer
	errw := &onLine{fn: func(line string) {
		if strings.Contains(line, `"kind":"loop.iteration"`) && strings.Contains(line, `"loop_number":1`) {
			srv.Stop()
		}
	}}
	code := run(context.Background(), []string{"run", wf, "x", "--redis", srv.URL(), "--trace", "-"}, &out, errw)
	errs := errw.buf.String()
	assert.Equal(t, 1, code, errs)
	assert.Empty(t, out.String())
	assert.Contains(t, errs, "cogloop: run failed: a loop stopped with stop_reason error")
	assert.Contains(t, errs, "iteration 2 was not persisted")
	assert.Contains(t, errs, "stopped: error")
}

// TestHistoryRefusesANonObjectEntry: an entry another writer stored as JSON
// null is named, with its run and iteration, and the command fails.
func TestHistoryRefusesANonObjectEntry(t *testing.T) {
	srv := redistest.Start(t)
	store, err := redis.New(context.Background(), srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	require.NoError(t, store.Append(context.Background(), "odd", memory.Entry{RunID: "r1", Iteration: 2, Data: []byte("null")}))
	code, _, errs := runCLI(t, "history", "--redis", srv.URL(), "--key", "odd")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `entry of run "r1" iteration 2 is not a JSON object: it is null`)
}
