package loopnode_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// transcript runs testdata/<name>/workflow.yaml with replies.yaml on input.txt and
// returns the run's result and a transcript: every rendered prompt and response in
// event order, the loop events, and the top-level outputs as JSON, with times
// masked. With -update it rewrites testdata/<name>/golden.txt; otherwise it
// compares with it.
func transcript(t *testing.T, name string, opts ...cogloop.RunOption) (*cogloop.Result, error) {
	t.Helper()
	dir := filepath.Join("testdata", name)
	wf, script, in := loadCase(t, dir)
	rec := &agenttest.Recorder{}
	opts = append([]cogloop.RunOption{cogloop.WithModels(script), cogloop.WithObserver(rec.Observe), cogloop.WithRunID("golden")}, opts...)
	res, runErr := wf.Run(context.Background(), in, opts...)

	var b strings.Builder
	for _, e := range rec.Events() {
		switch e.Kind {
		case event.AgentEnd:
			if e.Type == "loop" {
				fmt.Fprintf(&b, "== %s done\n", e.Node)
				continue
			}
			fmt.Fprintf(&b, "== %s\n-- prompt\n%s\n-- response\n%s\n", e.Node, strings.TrimRight(e.Prompt, "\n"), strings.TrimRight(e.Response, "\n"))
			if e.Error != "" {
				fmt.Fprintf(&b, "-- error\n%s\n", firstLine(e.Error))
			}
		case event.LoopStart, event.LoopPassStart, event.LoopIteration, event.LoopEnd:
			fmt.Fprintf(&b, "== %s %s %s\n", e.Kind, e.Node, compact(e.Data))
		case event.Warning:
			fmt.Fprintf(&b, "== warning %s: %s\n", e.Node, e.Message)
		case event.AgentRetry:
			// wait_ms is jittered: the transcript shows what decides the retry.
			fmt.Fprintf(&b, "== retry %s attempt=%d class=%v status=%v next_attempt=%v\n", e.Node, e.Attempt, e.Data["class"], e.Data["status"], e.Data["next_attempt"])
		}
	}
	if res != nil {
		outs := map[string]any{}
		res.Outputs.Each(func(id string, o agents.Output) bool {
			m := o.Record()
			delete(m, "formatted_prompt")
			outs[id] = m
			return true
		})
		js, err := json.MarshalIndent(outs, "", "  ")
		require.NoError(t, err)
		fmt.Fprintf(&b, "== outputs\n%s\n", js)
	}
	if runErr != nil {
		fmt.Fprintf(&b, "== run error\n%s\n", runErr)
	}
	got := mask(b.String())

	golden := filepath.Join(dir, "golden.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with -update to create %s", golden)
	if d := lineDiff(string(want), got); d != "" {
		t.Fatalf("transcript of %s differs from %s (run with -update after checking the change):\n%s", name, golden, d)
	}
	return res, runErr
}

// loadCase reads a transcript directory: its workflow, its scripted replies
// and its input (a JSON object in input.txt is passed as a mapping, as
// --json-input does).
func loadCase(t *testing.T, dir string) (*cogloop.Workflow, *scripted.Script, any) {
	t.Helper()
	wf, err := cogloop.Load(filepath.Join(dir, "workflow.yaml"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "replies.yaml"))
	require.NoError(t, err)
	script, err := scripted.Parse(data, filepath.Join(dir, "replies.yaml"))
	require.NoError(t, err)
	input, err := os.ReadFile(filepath.Join(dir, "input.txt"))
	require.NoError(t, err)
	var in any = strings.TrimSpace(string(input))
	var obj map[string]any
	if json.Unmarshal(input, &obj) == nil {
		in = agents.Plain(obj)
	}
	return wf, script, in
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func compact(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v, _ := json.Marshal(m[k])
		parts[i] = k + "=" + string(v)
	}
	return strings.Join(parts, " ")
}

var (
	timestamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?`)
	durations  = regexp.MustCompile(`"duration_ms": [0-9.e+-]+`)
)

func mask(s string) string {
	s = timestamps.ReplaceAllString(s, "<time>")
	return durations.ReplaceAllString(s, `"duration_ms": "<ms>"`)
}

// lineDiff lists the lines that differ between want and got ("-" want, "+" got),
// at most 20 of them; "" when they are equal.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

// A run nobody observes builds only the events its result needs (errors,
// warnings, loop ends): what it returns must be what an observed run returns,
// for every golden transcript's workflow.
func TestUnobservedRunsReturnWhatObservedRunsReturn(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	require.NoError(t, err)
	n := 0
	for _, d := range dirs {
		dir := filepath.Join("testdata", d.Name())
		if _, err := os.Stat(filepath.Join(dir, "replies.yaml")); err != nil {
			continue
		}
		n++
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			rec := &agenttest.Recorder{}
			observed := quietRun(t, dir, cogloop.WithObserver(rec.Observe))
			require.NotEmpty(t, rec.Events())
			assert.Equal(t, observed, quietRun(t, dir))
		})
	}
	require.NotZero(t, n)
}

// quietRun runs dir's workflow on its replies and input and returns the
// result (outputs, status, errors, warnings) and the run error as masked text.
func quietRun(t *testing.T, dir string, opts ...cogloop.RunOption) string {
	t.Helper()
	wf, script, in := loadCase(t, dir)
	opts = append([]cogloop.RunOption{cogloop.WithModels(script), cogloop.WithRunID("quiet")}, opts...)
	res, runErr := wf.Run(context.Background(), in, opts...)
	var b strings.Builder
	if res != nil {
		outs := map[string]any{}
		res.Outputs.Each(func(id string, o agents.Output) bool {
			outs[id] = o.Record()
			return true
		})
		js, err := json.MarshalIndent(map[string]any{"outputs": outs, "status": res.Status, "errors": res.Errors,
			"warnings": res.Warnings, "usage": res.Usage, "response": res.Response}, "", "  ")
		require.NoError(t, err)
		b.Write(js)
	}
	if runErr != nil {
		b.WriteString("\nrun error: " + runErr.Error())
	}
	return mask(b.String())
}
