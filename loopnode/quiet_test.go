package loopnode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	opts = append([]cogloop.RunOption{cogloop.WithModels(script), cogloop.WithRunID("quiet")}, opts...)
	res, runErr := wf.Run(context.Background(), in, opts...)
	var b strings.Builder
	if res != nil {
		outs := map[string]any{}
		res.Outputs.Each(func(id string, o agents.Output) bool {
			outs[id] = o.Map()
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
