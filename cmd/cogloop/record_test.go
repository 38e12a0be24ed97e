package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/internal/clibin"
)

const (
	qualityWF   = "../../examples/quality/workflow.yaml"
	qualityLine = "improvement_loop: 3/5 passes · 0.42 → 0.71 → 0.90 · stopped: threshold (0.90 ≥ 0.85) · best pass 3"
)

// recordIDs lists the run ids recorded in dir.
func recordIDs(t *testing.T, dir string) []string {
	t.Helper()
	list, err := records.Dir{Path: dir}.List(0)
	require.NoError(t, err)
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.RunID
	}
	return ids
}

// Every run writes a record, the bytes --trace writes; runs lists it, show
// prints the run's summary and its passes.
func TestRunRecordsAndShow(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errs := runCLI(t, "run", qualityWF, "Explain recursion", "--script", qualityScript, "--trace", trace)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, qualityLine)
	ids := recordIDs(t, dir)
	require.Len(t, ids, 1)
	id := ids[0]
	rec, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
	require.NoError(t, err)
	tr, err := os.ReadFile(trace)
	require.NoError(t, err)
	var withoutCalls []string
	for _, l := range strings.SplitAfter(string(rec), "\n") {
		if !strings.HasPrefix(l, `{"kind":"model.call"`) {
			withoutCalls = append(withoutCalls, l)
		}
	}
	assert.Contains(t, string(rec), `{"kind":"model.call"`, "the record keeps every model call")
	assert.Equal(t, string(tr), strings.Join(withoutCalls, ""), "a record is what --trace writes, plus the model calls")

	code, out, errs := runCLI(t, "runs")
	require.Equal(t, exitOK, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Regexp(t, `^RUN +WORKFLOW +STARTED +DURATION +STATUS +STOPPED +BEST +TOKENS +COST$`, lines[0])
	assert.Regexp(t, `^`+id+` +quality-workflow +\S+ \S+ +\S+ +ok +threshold +0\.90 +0 +–$`, lines[1])

	code, out, errs = runCLI(t, "runs", "--json")
	require.Equal(t, exitOK, code, errs)
	var list []records.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 1)
	assert.Equal(t, "ok", list[0].Status)

	code, out, errs = runCLI(t, "show", id[:12])
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "run "+id+" · workflow quality-workflow · ok")
	assert.Contains(t, out, qualityLine+"\n", "the summary line of the run")
	assert.Regexp(t, `(?m)^PASS +SCORE +STOP CONDITIONS +PROMPT TOKENS +TOKENS +ERRORS\n1 +0\.42 +score: no +0 +0 +–\n2 +0\.71 +score: no +0 +0 +–\n3 +0\.90 +score: fired +0 +0 +–$`, out)
	assert.NotContains(t, out, "incomplete")

	code, out, errs = runCLI(t, "show", "latest", "--json")
	require.Equal(t, exitOK, code, errs)
	var s records.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s))
	require.Len(t, s.Loops, 1)
	require.Len(t, s.Loops[0].Passes, 3)
	assert.Equal(t, "connect the dolls back to functions.", s.Loops[0].Passes[1].Lessons.Improvements)
	assert.Contains(t, s.Loops[0].Passes[0].Agents[1].Prompt, "Rate this explanation")
}

func TestRecordFlags(t *testing.T) {
	env := t.TempDir()
	t.Setenv(envRecordDir, env)
	code, _, errs := runCLI(t, "run", hello, "x", "--script", helloScript, "--no-record")
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, recordIDs(t, env), "--no-record")

	other := filepath.Join(t.TempDir(), "records")
	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--record-dir", other, "--run-id", "mine")
	require.Equal(t, exitOK, code, errs)
	assert.Empty(t, recordIDs(t, env))
	assert.Equal(t, []string{"mine"}, recordIDs(t, other), "--record-dir wins over the environment; --run-id names the record")

	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--record-dir", other, "--run-id", "mine")
	require.Equal(t, exitUsage, code, "an earlier run's id is refused")
	assert.Contains(t, errs, `--run-id mine names an earlier run (its run record `+filepath.Join(other, "mine.jsonl")+` exists); continue it with --resume mine, start it over with --replace-run`)

	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--record-dir", other, "--run-id", "mine", "--replace-run")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, `warning: run record `+filepath.Join(other, "mine.jsonl")+` of an earlier run "mine" is replaced`)

	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--no-record", "--record-dir", other)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--no-record and --record-dir contradict each other")

	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--run-id", "a/b")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `run id "a/b" cannot name a record file: it holds a path separator (or run with --no-record)`)
}

// Past the size cap, the oldest records go.
func TestRecordsArePruned(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	t.Setenv(envRecordMax, "1")
	for _, id := range []string{"first", "second"} {
		code, _, errs := runCLI(t, "run", hello, "x", "--script", helloScript, "--run-id", id)
		require.Equal(t, exitOK, code, errs)
	}
	assert.Equal(t, []string{"second"}, recordIDs(t, dir), "the record just written stays")

	t.Setenv(envRecordMax, "lots")
	code, _, errs := runCLI(t, "runs")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `COGLOOP_RECORD_MAX_BYTES="lots": want a positive number of bytes`)
}

func TestShowProblems(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	code, _, errs := runCLI(t, "show", "nothing")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `cogloop show: no such run record "nothing" in `+dir+`: run 'cogloop runs' to list the recorded runs`)

	code, out, _ := runCLI(t, "runs")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "no runs recorded in "+dir+"\n", out)

	code, _, errs = runCLI(t, "report", "x")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "report needs -o FILE.html")
}

// A record cut short (the run was killed mid-line) shows as far as it goes
// and says it is incomplete.
func TestShowTruncatedRecord(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	code, _, errs := runCLI(t, "run", qualityWF, "x", "--script", qualityScript, "--run-id", "cut")
	require.Equal(t, exitOK, code, errs)
	path := filepath.Join(dir, "cut.jsonl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	// Cut in the middle of the line where pass 2's improver starts.
	at, line := 0, 1
	for !bytes.HasPrefix(data[at:], []byte(`{"kind":"agent.start"`)) || !bytes.Contains(data[at:at+bytes.IndexByte(data[at:], '\n')], []byte("iteration 2 › improver")) {
		at += bytes.IndexByte(data[at:], '\n') + 1
		line++
	}
	require.NoError(t, os.WriteFile(path, data[:at+20], 0o644))

	code, out, errs := runCLI(t, "show", "cut")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "run cut · workflow quality-workflow · incomplete")
	assert.Contains(t, out, fmt.Sprintf("incomplete record: the run did not end (killed, or still running); line %d is cut short (the process writing it was killed)", line))
	assert.Contains(t, out, "improvement_loop: 1/5 passes · 0.42 · stopped: (not ended)")

	code, _, errs = runCLI(t, "report", "cut", "-o", filepath.Join(t.TempDir(), "r.html"))
	require.Equal(t, exitOK, code, errs)
}

// kill -9 in the middle of a run leaves a record that is a valid prefix of the
// run's events; show says it is incomplete.
func TestRecordAfterKill9(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(t.TempDir(), "replies.yaml")
	require.NoError(t, os.WriteFile(script, []byte(`improver:
  - "draft"
  - {text: "slow draft", delay: 1h}
scorer: ["SCORE: 0.4"]
final_answer: ["done"]
`), 0o600))
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = pr.Close() }() // read end of a pipe
	cmd := exec.Command(clibin.Path(t), "run", qualityWF, "x", "--script", script, "--run-id", "killed",
		"--record-dir", dir, "--trace", "/dev/fd/3")
	cmd.ExtraFiles = []*os.File{pw}
	require.NoError(t, cmd.Start())
	require.NoError(t, pw.Close()) // the child holds its own copy
	var traced []event.Event
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		traced = append(traced, e)
		if e.Kind == event.AgentStart && strings.HasSuffix(e.Node, "iteration 2 › improver") {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL: nothing runs after it
			break
		}
	}
	_ = cmd.Wait()

	rec, err := records.Dir{Path: dir}.Read("killed")
	require.NoError(t, err)
	assert.False(t, rec.Complete)
	require.NotEmpty(t, rec.Events)
	var recorded []event.Event // the record holds the trace's events and the model calls
	for _, e := range rec.Events {
		if e.Kind != event.ModelCall {
			recorded = append(recorded, e)
		}
	}
	require.LessOrEqual(t, len(recorded), len(traced))
	for i, e := range recorded {
		assert.Equal(t, traced[i].Kind, e.Kind, "event %d", i)
		assert.Equal(t, traced[i].Node, e.Node, "event %d", i)
	}
	code, out, errs := runCLI(t, "show", "killed", "--record-dir", dir)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "· incomplete ·")
	assert.Contains(t, out, "incomplete record: the run did not end")
	assert.Regexp(t, `(?m)^1 +0\.40 +score: no`, out, "the pass that ended before the kill")
}

func TestReportCommandAndRunReport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, dir)
	page := filepath.Join(t.TempDir(), "run.html")
	code, _, errs := runCLI(t, "run", qualityWF, "x", "--script", qualityScript, "--run-id", "rep", "--report", page)
	require.Equal(t, exitOK, code, errs)
	fromRun, err := os.ReadFile(page)
	require.NoError(t, err)

	again := filepath.Join(t.TempDir(), "again.html")
	code, out, errs := runCLI(t, "report", "rep", "-o", again)
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, again+": report of run rep\n", out)
	fromRecord, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, string(fromRun), string(fromRecord), "run --report and report RUN render the same page")
	assert.Contains(t, string(fromRun), `<svg class="chart" data-loop="improvement_loop"`)

	// --report without a record still works: it renders the events in memory.
	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--no-record", "--report", page)
	require.Equal(t, exitOK, code, errs)

	code, _, errs = runCLI(t, "run", hello, "x", "--script", helloScript, "--report", filepath.Join(t.TempDir(), "no", "such", "r.html"))
	assert.Equal(t, exitFailure, code, "a report that cannot be written fails the command")
	assert.Contains(t, errs, "cogloop: write report: open ")
}

func TestFirstFew(t *testing.T) {
	assert.Equal(t, "–", firstFew(nil))
	assert.Equal(t, "a,b,c", firstFew([]string{"a", "b", "c"}))
	assert.Equal(t, "a,b,c +2", firstFew([]string{"a", "b", "c", "d", "e"}))
}

// A check: before condition that stops a loop ahead of a pass is shown.
func TestShowBeforeCheck(t *testing.T) {
	t.Setenv(envRecordDir, t.TempDir())
	const dir = "../../loopnode/testdata/before/"
	code, _, errs := runCLI(t, "run", dir+"workflow.yaml", "--input-file", dir+"input.txt", "--json-input",
		"--script", dir+"replies.yaml", "--run-id", "before")
	require.Equal(t, exitOK, code, errs)
	code, out, errs := runCLI(t, "show", "before")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "l: 0/5 passes · stopped: condition\n")
	assert.Contains(t, out, "checked before pass 1: while: fired · the loop stopped here\n")

	page := filepath.Join(t.TempDir(), "r.html")
	code, _, errs = runCLI(t, "report", "before", "-o", page)
	require.Equal(t, exitOK, code, errs)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), `Checked before pass 1: <span class="cond fired">while: fired · input.budget &gt; 0 is false</span> <b>the loop stopped here</b>`)
}
