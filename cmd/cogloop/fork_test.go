package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory/redis/redistest"
)

const forkCLIWorkflow = `orchestrator: {id: forkcli, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.99
    score_from: critic
    cognitive_extraction: {enabled: true, extract_patterns: {improvements: ["FIX:\\s*([^\\n]+)"]}}
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "%s {{ get_input() }} pass {{ loop_number }}: {%% for p in get_past_loops() %%}[{{ p.score }} {{ p.improvements }}]{%% endfor %%}"}
        - {id: critic, type: openai-answer, model: m, prompt: "Rate {{ previous_outputs.writer.response }}"}
`

// forkCLIScript answers passes from..5 (writer drafts, critic scores and fixes).
func forkCLIScript(from int) string {
	var w, c []string
	for n := from; n <= 5; n++ {
		w = append(w, fmt.Sprintf("  - draft %d", n))
		c = append(c, fmt.Sprintf("  - \"SCORE: 0.%d\\nFIX: tighten section %d\"", n, n))
	}
	return "writer:\n" + strings.Join(w, "\n") + "\ncritic:\n" + strings.Join(c, "\n") + "\n"
}

// cogloop fork without Redis: the checkpoint files beside the records let a
// new run start from pass 3 of a finished one, with the parent's workflow
// file and input by default; show and the report link the two; refusals exit
// 2 naming what is wrong. With --redis, the same through Redis.
func TestForkCommand(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	dir := t.TempDir()
	t.Setenv(envRecordDir, filepath.Join(dir, "runs"))
	wf := writeFile(t, dir, "wf.yaml", fmt.Sprintf(forkCLIWorkflow, "Write about"))
	full := writeFile(t, dir, "full.yaml", forkCLIScript(1))
	from3 := writeFile(t, dir, "from3.yaml", forkCLIScript(3))

	code, parentOut, errs := runCLI(t, "run", wf, "tides", "--script", full, "--run-id", "p")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "cogloop: run p (resume with --resume p)")
	assert.FileExists(t, filepath.Join(dir, "runs", "checkpoints", "cogloop+default+p.json"))

	code, out, errs := runCLI(t, "fork", "p", "--pass", "3", "--script", from3, "--run-id", "f")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, parentOut, out, "the fork ends with the parent's answer")
	assert.Contains(t, errs, "cogloop: run f, forked from run p at pass 3")

	code, out, _ = runCLI(t, "show", "f")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "forked from run p at pass l:3")
	code, out, _ = runCLI(t, "show", "p")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "forked: run f from pass l:3")
	report := filepath.Join(dir, "f.html")
	code, _, errs = runCLI(t, "report", "f", "-o", report)
	require.Equal(t, 0, code, errs)
	html, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(html), `id="forked-from">forked from run <b class="mono">p</b> at pass <b>l:3</b>`)

	// A changed prompt and a new input: pass 4 on, with the lessons of passes 1–3.
	changed := writeFile(t, dir, "changed.yaml", fmt.Sprintf(forkCLIWorkflow, "Write briefly about"))
	from4 := writeFile(t, dir, "from4.yaml", forkCLIScript(4))
	trace := filepath.Join(dir, "trace.jsonl")
	code, _, errs = runCLI(t, "fork", "p", changed, "--pass", "l:4", "--input", "coral", "--script", from4, "--trace", trace)
	require.Equal(t, 0, code, errs)
	events, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Contains(t, string(events), `Write briefly about coral pass 4: [0.1 tighten section 1][0.2 tighten section 2][0.3 tighten section 3]`)

	// Refusals: exit 2, nothing run.
	extra := writeFile(t, dir, "extra.yaml", strings.Replace(fmt.Sprintf(forkCLIWorkflow, "Write about"), "agents: [writer, critic]", "agents: [writer, critic, writer2]", 1)+
		"        - {id: writer2, type: openai-answer, model: m, prompt: x}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fork", "p", extra, "--pass", "2", "--script", full}, `loop "l" ran agents [writer, critic], now [writer, critic, writer2]`},
		{[]string{"fork", "p", "--pass", "6", "--script", full}, `loop "l" has max_loops 5 in this workflow: pass 6 would not run`},
		{[]string{"fork", "p", "--pass", "9", "--script", full}, `loop "l" of the run completed 5 passes: fork from a pass from 1 to 6`},
		{[]string{"fork", "ghost", "--pass", "2"}, `fork run "ghost": no checkpoint for this run`},
		{[]string{"fork", "p"}, "fork needs --pass K"},
		{[]string{"fork", "--pass", "2"}, "fork needs the run to fork"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, tc.args)
		assert.NotContains(t, errs, "resume with", "a refused fork is no run to resume")
	}

	srv := redistest.Start(t)
	code, parentOut, errs = runCLI(t, "run", wf, "tides", "--script", full, "--run-id", "rp", "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	code, out, errs = runCLI(t, "fork", "rp", "--pass", "3", "--script", from3, "--redis", srv.URL())
	require.Equal(t, 0, code, errs)
	assert.Equal(t, parentOut, out)
}

// Item 9 of issue 32: --run-id prints the resume hint where the checkpoint
// can be resumed (Redis, or the checkpoint files: a run that failed in pass
// 2 resumes from another process without Redis), and says why not where it
// cannot (no writable record directory).
func TestRunIDResumeHintWithoutRedis(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	dir := t.TempDir()
	t.Setenv(envRecordDir, filepath.Join(dir, "runs"))
	wf := writeFile(t, dir, "wf.yaml", fmt.Sprintf(forkCLIWorkflow, "Write about"))
	two := writeFile(t, dir, "two.yaml", "writer:\n  - draft 1\n  - draft 2\ncritic:\n  - \"SCORE: 0.1\"\n")
	code, _, errs := runCLI(t, "run", wf, "tides", "--script", two, "--run-id", "r1")
	require.Equal(t, 1, code, "the script runs out in pass 2: %s", errs)
	assert.Contains(t, errs, "cogloop: run r1 (resume with --resume r1)")
	rest := writeFile(t, dir, "rest.yaml", forkCLIScript(2))
	code, out, errs := runCLI(t, "run", wf, "tides", "--script", rest, "--resume", "r1")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "draft 5\n", out, "passes 2–5 ran on the checkpoint of pass 1")

	// .cogloop is a file: neither records nor checkpoint files can be kept.
	cwd, err := os.Getwd()
	require.NoError(t, err)
	wfAbs, scriptAbs := filepath.Join(cwd, hello), filepath.Join(cwd, helloScript)
	work := t.TempDir()
	writeFile(t, work, ".cogloop", "")
	t.Setenv(envRecordDir, "")
	t.Chdir(work)
	code, _, errs = runCLI(t, "run", wfAbs, "x", "--script", scriptAbs, "--run-id", "r2")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "--resume r2")
	assert.Contains(t, errs, "cogloop: run r2 (not resumable: its checkpoint stays in this process; checkpoints need a writable record directory or --redis URL)")
}
