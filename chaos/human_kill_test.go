package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// humanWorkflow is a persisted loop whose passes a person scores; the
// comments are lessons the next pass reads.
const humanWorkflow = `orchestrator: {id: judged, agents: [draft, l, final]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "draft {{ input }}"}
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
    persist_across_runs: true
    cognitive_extraction: {enabled: true, extract_patterns: {improvements: ["FIX: ([^\\n]+)"]}}
    internal_workflow:
      orchestrator: {id: inner, agents: [w, judge]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "write {{ loop_number }} {{ get_past_loops() | length }}"}
        - {id: judge, type: human, kind: score, prompt: "Rate: {{ previous_outputs.w.response }}"}
  - {id: final, type: openai-answer, model: m, prompt: "final {{ previous_outputs.l.loops_completed }}"}
`

const humanScript = `draft: {cycle: ["a draft of the article"]}
w: {cycle: ["a longer version of the article"]}
final: {cycle: ["the final article"]}
`

// humanAnswers are the three passes' scores and comments.
var humanAnswers = [][2]string{
	{"0.3", "FIX: make the opening paragraph shorter and plainer"},
	{"0.5", "FIX: add one worked example after the second section"},
	{"0.95", ""},
}

// The cogloop binary asks each question on its terminal (--ask) and is
// killed with -9 while it waits for the answer to pass k (k = 1, 2, 3);
// the answer then comes from `cogloop answer` in other processes, which
// continue the run to its end. The history in Redis is the one of a run
// answered without a kill, and no model call is made twice: the record
// of the run holds each call once, as the uninterrupted run's does.
func TestKillNineWhileWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := redistest.Start(t)
	bin := clibin.Path(t)
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(humanWorkflow), 0o600))
	script := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(script, []byte(humanScript), 0o600))
	runs := records.Dir{Path: filepath.Join(dir, "runs")}
	t.Setenv("COGLOOP_RECORD_DIR", runs.Path)
	t.Setenv("COGLOOP_USER", "ann")

	// The reference: every answer typed on stdin, no kill.
	var typed strings.Builder
	for _, a := range humanAnswers {
		fmt.Fprintf(&typed, "%s\n%s\n", a[0], a[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", wf, "topic", "--ask", "--redis", srv.URL(), "--namespace", "ref", "--run-id", "ref", "--script", script)
	cmd.Stdin = strings.NewReader(typed.String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	require.Equal(t, "the final article\n", out.String())
	refHistory := history(t, srv.URL(), "ref", "judged")
	require.Len(t, refHistory, 3)
	assert.Equal(t, "make the opening paragraph shorter and plainer", refHistory[0]["improvements"])
	refCalls := modelCalls(t, runs, "ref")

	for k := 1; k <= 3; k++ {
		t.Run(fmt.Sprintf("killed_waiting_for_pass_%d", k), func(t *testing.T) {
			ns, id := fmt.Sprintf("kill%d", k), fmt.Sprintf("k%d", k)
			killWhileAsking(t, bin, wf, script, srv.URL(), ns, id, humanAnswers[:k-1])
			for i := k - 1; i < len(humanAnswers); i++ {
				cmd := exec.CommandContext(ctx, bin, "answer", id, "--score", humanAnswers[i][0], "--comment", humanAnswers[i][1],
					"--by", "ann", "--redis", srv.URL(), "--namespace", ns)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				if i < len(humanAnswers)-1 {
					var ee *exec.ExitError
					require.ErrorAs(t, err, &ee, errb.String())
					require.Equal(t, 3, ee.ExitCode(), "the run waits for pass %d: %s", i+2, errb.String())
					assert.Contains(t, errb.String(), fmt.Sprintf("iteration %d › judge", i+2))
					continue
				}
				require.NoError(t, err, errb.String())
				assert.Equal(t, "the final article\n", out.String())
			}
			assert.Equal(t, refHistory, history(t, srv.URL(), ns, "judged"), "the history of a killed and answered run")
			assert.Equal(t, refCalls, modelCalls(t, runs, id), "model calls of the killed and continued run")
		})
	}
}

// killWhileAsking starts a run that asks on its terminal, types the given
// answers, and kills it with -9 once it asks the next question.
func killWhileAsking(t *testing.T, bin, wf, script, url, ns, id string, answers [][2]string) {
	t.Helper()
	cmd := exec.Command(bin, "run", wf, "topic", "--ask", "--redis", url, "--namespace", ns, "--run-id", id, "--script", script)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	asked := 0
	r := bufio.NewReader(stderr)
	var seen strings.Builder
	for {
		// The prompts end without a newline: read up to each "> ".
		chunk, err := r.ReadString('>')
		seen.WriteString(chunk)
		require.NoError(t, err, "the run ended before it asked: %s", seen.String())
		if !strings.HasSuffix(chunk, "answer (0..1, 8/10 or 80%)>") {
			continue
		}
		if asked == len(answers) {
			require.NoError(t, cmd.Process.Kill())
			break
		}
		// answer and comment
		_, err = fmt.Fprintf(stdin, "%s\n%s\n", answers[asked][0], answers[asked][1])
		require.NoError(t, err)
		asked++
	}
	_ = cmd.Wait()
}

// history is loop l's persisted history in namespace ns, without the
// entries' timestamps.
// history reads loop "l"'s persisted past_loops in workflow wf.
func history(t *testing.T, url, ns, wf string) []map[string]any {
	t.Helper()
	store, err := redis.New(context.Background(), url, redis.Patient(ns))
	require.NoError(t, err)
	defer func() { _ = store.Close() }() // reads only
	entries, err := store.History(context.Background(), memory.HistoryID(wf, "l"), 0)
	require.NoError(t, err)
	var out []map[string]any
	for _, e := range entries {
		var m map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &m))
		m = maps.Clone(m)
		delete(m, "timestamp")
		out = append(out, m)
	}
	return out
}

// modelCalls counts the model calls in run id's record by agent and prompt.
func modelCalls(t *testing.T, runs records.Dir, id string) map[string]int {
	t.Helper()
	rec, err := runs.Read(id)
	require.NoError(t, err)
	calls := map[string]int{}
	for _, e := range rec.Events {
		if e.Kind == event.ModelCall {
			calls[e.Agent+": "+e.Prompt]++
		}
	}
	require.NotEmpty(t, calls)
	return calls
}

const pausedWorkflow = `orchestrator: {id: long, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 4
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, judge]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "pass {{ loop_number }}"}
        - {id: judge, type: human, kind: score, prompt: "Rate pass {{ loop_number }}"}
`

// Ctrl-Z (SIGTSTP) on a running cogloop asks its run to pause: the run
// stops at the next pass boundary with exit 3 and status paused, and
// --resume finishes it from there, each pass run once. The run is held
// in pass 1 by its question, so the signal lands there.
func TestSigtstpPausesARun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := redistest.Start(t)
	bin := clibin.Path(t)
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(pausedWorkflow), 0o600))
	script := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(script, []byte("writer: {cycle: [\"a draft\"]}\n"), 0o600))
	runs := records.Dir{Path: filepath.Join(dir, "runs")}
	t.Setenv("COGLOOP_RECORD_DIR", runs.Path)

	cmd := exec.Command(bin, "run", wf, "x", "--ask", "--redis", srv.URL(), "--namespace", "tstp", "--run-id", "z", "--script", script)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := bufio.NewReader(stderr)
	var seen strings.Builder
	readUntil := func(s string) { // byte by byte: the prompts end without a newline
		for !strings.HasSuffix(seen.String(), s) {
			b, err := r.ReadByte()
			require.NoError(t, err, "waiting for %q: %s", s, seen.String())
			seen.WriteByte(b)
		}
	}
	readUntil("answer (0..1, 8/10 or 80%)>")
	require.NoError(t, cmd.Process.Signal(syscall.SIGTSTP))
	readUntil("pausing run z at its next pass boundary")
	_, err = fmt.Fprint(stdin, "0.5\n\n")
	require.NoError(t, err)
	rest, _ := io.ReadAll(r)
	seen.Write(rest)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, seen.String())
	require.Equal(t, 3, ee.ExitCode(), seen.String())
	assert.Contains(t, seen.String(), "cogloop: run z paused; continue it with:")
	assert.Len(t, history(t, srv.URL(), "tstp", "long"), 1, "paused after pass 1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resume := exec.CommandContext(ctx, bin, "run", wf, "x", "--ask", "--redis", srv.URL(), "--namespace", "tstp", "--resume", "z", "--script", script)
	resume.Stdin = strings.NewReader(strings.Repeat("0.5\n\n", 3))
	out, err := resume.CombinedOutput()
	require.NoError(t, err, string(out))
	past := history(t, srv.URL(), "tstp", "long")
	require.Len(t, past, 4)
	for i, e := range past {
		assert.EqualValues(t, i+1, e["loop_number"])
		assert.EqualValues(t, 0.5, e["score"])
	}
	calls := modelCalls(t, runs, "z")
	for p, n := range calls {
		assert.Equal(t, 1, n, "model call %q", p)
	}
	assert.Len(t, calls, 4)
}
