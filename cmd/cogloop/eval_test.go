package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	quality       = "../../examples/quality/workflow.yaml"
	qualityScript = "../../examples/quality/replies.yaml"
	// qualityAnswer is what the quality example answers with its replies.
	qualityAnswer = "Recursion is like Russian dolls"
)

func readResults(t *testing.T, path string) []evalResult {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []evalResult
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r evalResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), sc.Text())
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// tableRow is the value of the table row named key, or "".
func tableRow(table, key string) string {
	for _, line := range strings.Split(table, "\n") {
		if rest, ok := strings.CutPrefix(line, key+"  "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func TestEvalRunsEveryLineAndPrintsTheTable(t *testing.T) {
	dir := t.TempDir()
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "recursion", "expect": {"contains": "Russian dolls"}}

{"input": {"topic": "loops"}, "expect": {"regex": "^Recursion\\s+is"}}
{"input": "three", "expect": {"equals": "something else"}}
{"input": "four"}
`)
	out := dir + "/results.jsonl"
	code, stdout, errs := runCLI(t, "eval", quality, "--dataset", ds, "--script", qualityScript, "--concurrency", "2", "--out", out)
	assert.Equal(t, exitFailure, code, "one expectation is not met: %s", errs)
	for key, want := range map[string]string{
		"runs":              "4 (4 ok, 0 failed)",
		"assertions passed": "2 of 3",
		"assertion failed":  "line 4 (reasons on stderr)",
		"pass rate":         "75.0% (3 of 4 runs; need 100.0%)",
		"threshold met":     "4 of 4",
		"final score":       "mean 0.900, median 0.900",
		"passes per run":    "3.0",
		"tokens":            "0",
	} {
		assert.Equal(t, want, tableRow(stdout, key), key)
	}
	assert.Contains(t, tableRow(stdout, "slowest"), "line ")
	assert.NotContains(t, stdout, "interrupted")
	assert.NotContains(t, errs, "\r", "no progress bar when stderr is not a terminal")

	rs := readResults(t, out)
	require.Len(t, rs, 4)
	assert.Equal(t, []int{1, 3, 4, 5}, []int{rs[0].Line, rs[1].Line, rs[2].Line, rs[3].Line}, "blank lines are skipped, numbers kept")
	assert.Equal(t, map[string]any{"topic": "loops"}, rs[1].Input)
	for _, r := range rs {
		assert.Equal(t, "ok", r.Status)
		assert.Contains(t, r.Answer, qualityAnswer)
		require.NotNil(t, r.FinalScore)
		assert.InDelta(t, 0.9, *r.FinalScore, 1e-9)
		assert.Equal(t, 3, r.Passes, "each run replays the script from its start")
		require.Len(t, r.Loops, 1)
		assert.Equal(t, "threshold", r.Loops[0].StopReason)
	}
	assert.Equal(t, []assertResult{{Kind: "contains", Value: "Russian dolls", Pass: true}}, rs[0].Assertions)
	assert.True(t, rs[1].Assertions[0].Pass)
	require.Len(t, rs[2].Assertions, 1)
	assert.False(t, rs[2].Assertions[0].Pass)
	assert.Equal(t, "equals", rs[2].Assertions[0].Kind)
	assert.Contains(t, rs[2].Assertions[0].Reason, `answer is not "something else": "Recursion is like Russian dolls`)
	assert.Equal(t, []string{rs[2].Assertions[0].Kind + ": " + rs[2].Assertions[0].Reason}, rs[2].Failures)
	assert.False(t, rs[2].Pass)
	assert.True(t, rs[3].Pass)
	assert.Nil(t, rs[3].Assertions)
	assert.Contains(t, errs, `FAIL line 4: equals: answer is not "something else"`, "the reason is on stderr")

	code, stdout, errs = runCLI(t, "eval", quality, "--dataset", writeFile(t, dir, "good.jsonl", `{"input": "x", "expect": {"contains": "dolls"}}`),
		"--script", qualityScript)
	assert.Equal(t, exitOK, code, "every run ok and every expectation met: %s%s", stdout, errs)
}

func TestEvalFailedRunsExitOne(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "fail.yaml", "writer: [{error: the model is down}]\n")
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "a"}`+"\n"+`{"input": "b"}`+"\n")
	out := dir + "/r.jsonl"
	code, stdout, errs := runCLI(t, "eval", hello, "--dataset", ds, "--script", script, "--out", out)
	assert.Equal(t, exitFailure, code, errs)
	assert.Equal(t, "2 (0 ok, 2 failed)", tableRow(stdout, "runs"))
	assert.Equal(t, "line 1, 2", tableRow(stdout, "failed"))
	for _, r := range readResults(t, out) {
		assert.Equal(t, "failed", r.Status)
		require.NotEmpty(t, r.Errors)
		assert.Contains(t, r.Errors[0].Message, "the model is down")
		assert.Equal(t, "writer", r.Errors[0].Agent)
	}
}

func TestEvalBadDatasetLinesNameTheLine(t *testing.T) {
	dir := t.TempDir()
	ds := writeFile(t, dir, "bad.jsonl", strings.Join([]string{
		`{"input": "fine"}`,
		`{"inputs": "typo"}`,
		`{"expect": {"contains": "x"}}`,
		`not json`,
		`{"input": "x", "expect": {"contains": "a", "equals": "b"}}`,
		`{"input": "x", "expect": {"regex": "(unclosed"}}`,
		`{"input": "x", "expect": {"startswith": "a"}}`,
	}, "\n"))
	code, stdout, errs := runCLI(t, "eval", hello, "--dataset", ds, "--script", helloScript)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout, "nothing runs when the dataset is bad")
	for _, want := range []string{
		ds + `:2: unknown field "inputs"; did you mean "input"? (a line has: input, name, expect, assert, default_assert)`,
		ds + `:3: missing "input"`,
		ds + `:4: not a dataset line: each line is one JSON object`,
		ds + `:5: expect needs exactly one of "contains", "equals", "regex", got 2`,
		ds + `:6: expect.regex`,
		ds + `:7: expect: unknown field "startswith"`,
	} {
		assert.Contains(t, errs, want)
	}
	assert.NotContains(t, errs, ds+":1:")

	code, _, errs = runCLI(t, "eval", hello, "--dataset", writeFile(t, dir, "empty.jsonl", "\n\n"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "no dataset lines")
	code, _, errs = runCLI(t, "eval", hello)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "eval needs --dataset")
	code, _, errs = runCLI(t, "eval", hello, "--dataset", ds, "--concurrency", "0")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--concurrency must be between 1 and 64")
}

// slowServer speaks OpenAI's chat completions: it answers at once, except a
// prompt containing "slow", which it holds until the client goes away; slow
// is closed when that request arrives.
func slowServer(t *testing.T) (url string, slow <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "slow") {
			once.Do(func() { close(ch) })
			<-r.Context().Done()
			return
		}
		agenttest.WriteChatReply(w, "fast answer", 3, 2)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", ch
}

const modelWorkflow = `orchestrator: {id: e, strategy: sequential, agents: [answer]}
agents:
  - id: answer
    type: openai-answer
    model: gpt-4o-mini
    prompt: "{{ get_input() }}"
`

const slowDataset = `{"input": "fast one"}
{"input": "slow"}
{"input": "fast two"}
`

// An interrupt cancels the run in flight, starts no other, and prints the
// table of the runs that finished with a note.
func TestEvalInterruptPrintsPartialTable(t *testing.T) {
	url, slow := slowServer(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", url)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	ds := writeFile(t, dir, "ds.jsonl", slowDataset)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-slow
		cancel(signalCause{sig: os.Interrupt})
	}()
	var stdout, stderr bytes.Buffer
	out := dir + "/r.jsonl"
	code := run(ctx, []string{"eval", wf, "--dataset", ds, "--concurrency", "1", "--out", out}, &stdout, &stderr)
	assert.Equal(t, exitSIGINT, code, stderr.String())
	assert.Equal(t, "1 (1 ok, 0 failed)", tableRow(stdout.String(), "runs"))
	assert.Equal(t, "5", tableRow(stdout.String(), "tokens"))
	assert.Contains(t, stdout.String(), "interrupted: partial results, 1 of 3 runs finished (1 canceled in flight, 1 not started)")
	rs := readResults(t, out)
	require.Len(t, rs, 2, "the runs that started are written")
	assert.Equal(t, "ok", rs[0].Status)
	assert.Equal(t, "fast answer", rs[0].Answer)
	assert.Equal(t, statusCanceled, rs[1].Status)
}

// The same through the built binary and a real SIGINT.
func TestEvalCtrlCThroughTheBinary(t *testing.T) {
	url, slow := slowServer(t)
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	ds := writeFile(t, dir, "ds.jsonl", slowDataset)
	var stdout bytes.Buffer
	cmd := exec.Command(clibin.Path(t), "eval", wf, "--dataset", ds, "--concurrency", "1")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+url)
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := newProc(cmd, errPipe)
	<-slow
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, exitSIGINT, p.wait(t), p.stderr())
	assert.Equal(t, "1 (1 ok, 0 failed)", tableRow(stdout.String(), "runs"))
	assert.Contains(t, stdout.String(), "interrupted: partial results, 1 of 3 runs finished")
}

// On a terminal the bar counts finished runs and is erased at the end.
func TestEvalBarOnATerminal(t *testing.T) {
	var b bytes.Buffer
	bar := newEvalBar(&b, 4, true)
	bar.add(evalResult{Status: "ok"})
	bar.add(evalResult{Status: "failed"})
	bar.add(evalResult{Status: statusCanceled})
	bar.done()
	assert.Contains(t, b.String(), "eval ["+strings.Repeat(".", 30)+"] 0/4")
	assert.Contains(t, b.String(), "eval [###############...............] 2/4  ok 1  failed 1")
	assert.True(t, strings.HasSuffix(b.String(), "\r\x1b[K"), "the bar is erased")
	b.Reset()
	off := newEvalBar(&b, 4, false)
	off.add(evalResult{Status: "ok"})
	off.done()
	assert.Empty(t, b.String(), "nothing is drawn without a terminal")
}

// Run warnings are counted by code in the table and listed per run in --out.
func TestEvalCountsWarnings(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "r.yaml", `improver: {cycle: ["draft"]}
scorer: ["no number here", "SCORE: 0.9"]
final_answer: ["done"]
`)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "a"}`+"\n")
	out := dir + "/r.jsonl"
	code, stdout, errs := runCLI(t, "eval", quality, "--dataset", ds, "--script", script, "--out", out)
	require.Equal(t, exitOK, code, stdout+errs)
	assert.Equal(t, "no_score ×1 (in --out per run)", tableRow(stdout, "warnings"))
	rs := readResults(t, out)
	require.Len(t, rs, 1)
	require.Len(t, rs[0].Warnings, 1)
	assert.Equal(t, "no_score", rs[0].Warnings[0].Code)
	assert.Equal(t, 2, rs[0].Passes)
}
