package cogloop_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/legacy"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden transcripts in testdata/types/")

// offline loads path with the failing type's wait faked and runs it on input
// with replies (the --script form) and a fresh in-memory store; it returns
// the workflow (nil, with the error, when it does not load), the result, the
// events and the run error.
func offline(t *testing.T, path, replies string, input any) (*cogloop.Workflow, *cogloop.Result, []event.Event, error) {
	t.Helper()
	sleep := &agenttest.Sleeper{}
	wf, err := cogloop.Load(path, cogloop.WithRegistry(cogloop.NewTestRegistry(legacy.Options{Sleep: sleep.Sleep})))
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := os.ReadFile(replies)
	require.NoError(t, err)
	script, err := scripted.Parse(data, replies)
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, runErr := wf.Run(context.Background(), input, cogloop.WithModels(script), cogloop.WithObserver(rec.Observe),
		cogloop.WithMemory(store), cogloop.WithRunID("golden"))
	return wf, res, rec.Events(), runErr
}

var (
	goldenTimes     = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	goldenDurations = regexp.MustCompile(`"duration_ms": [0-9.e+-]+`)
)

// TestAgentTypesGolden runs each testdata/types/<name>/workflow.yaml with its
// replies.yaml on input.txt and compares the transcript (load warnings,
// every agent's prompt, response and error, run-time warnings, the top-level
// outputs) with golden.txt; -update rewrites it.
func TestAgentTypesGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "types", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			input, err := os.ReadFile(filepath.Join(dir, "input.txt"))
			require.NoError(t, err)
			wf, res, events, runErr := offline(t, filepath.Join(dir, "workflow.yaml"), filepath.Join(dir, "replies.yaml"), strings.TrimSpace(string(input)))
			require.NotNil(t, wf, "load: %v", runErr)
			got := transcript(t, wf, res, events, runErr)
			agenttest.Golden(t, filepath.Join(dir, "golden.txt"), got, *updateGolden)
		})
	}
}

// transcript is what a golden compares: load warnings, every agent's
// prompt, response and error, run-time warnings, the top-level outputs and
// the run error, with times and durations masked.
func transcript(t *testing.T, wf *cogloop.Workflow, res *cogloop.Result, events []event.Event, runErr error) string {
	t.Helper()
	var b strings.Builder
	for _, w := range wf.Warnings {
		fmt.Fprintf(&b, "== load warning\n%s\n", w.Error())
	}
	for _, e := range events {
		switch e.Kind {
		case event.AgentEnd:
			fmt.Fprintf(&b, "== %s\n-- prompt\n%s\n-- response\n%s\n", e.Node, strings.TrimRight(e.Prompt, "\n"), strings.TrimRight(e.Response, "\n"))
			if e.Error != "" {
				fmt.Fprintf(&b, "-- error\n%s\n", e.Error)
			}
		case event.Warning:
			fmt.Fprintf(&b, "== warning %s: %s\n", e.Node, e.Message)
		}
	}
	js, err := agenttest.OutputsJSON(res.Outputs)
	require.NoError(t, err)
	fmt.Fprintf(&b, "== outputs\n%s\n", js)
	if runErr != nil {
		fmt.Fprintf(&b, "== run error\n%s\n", runErr)
	}
	got := goldenTimes.ReplaceAllString(b.String(), "<time>")
	return goldenDurations.ReplaceAllString(got, `"duration_ms": "<ms>"`)
}
