package cogloop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The template name checks raise nothing on the workflows we ship: no load
// problem from a template's names, and no undefined_name event when the
// examples run offline.
func TestExamplesHaveNoUndefinedNames(t *testing.T) {
	var files []string
	for _, dir := range []string{"examples"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := filepath.Ext(path)
			if !d.IsDir() && (ext == ".yaml" || ext == ".yml") && isWorkflow(t, path) {
				files = append(files, path)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.GreaterOrEqual(t, len(files), 3)
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			wf, err := cogloop.Load(path)
			var probs []agents.Problem
			var le *agents.LoadError
			if errors.As(err, &le) {
				probs = le.Problems
			} else {
				require.NoError(t, err)
				probs = wf.Warnings
			}
			for _, p := range probs {
				for _, sign := range []string{"undefined function", "undefined filter", "undefined test", "undefined variable", "previous_outputs has no"} {
					assert.NotContains(t, p.Msg, sign)
				}
			}
			replies := filepath.Join(filepath.Dir(path), "replies.yaml")
			data, err := os.ReadFile(replies)
			if wf == nil || os.IsNotExist(err) {
				return
			}
			require.NoError(t, err)
			script, err := agents.ParseScript(data, replies)
			require.NoError(t, err)
			rec := &agenttest.Recorder{}
			_, err = wf.Run(context.Background(), "an example topic", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
			require.NoError(t, err)
			for _, e := range rec.Events() {
				if e.Kind == agents.EventWarning {
					assert.NotEqual(t, "undefined_name", e.Data["code"], e.Message)
				}
			}
		})
	}
}

// isWorkflow reports whether path holds a workflow (an orchestrator block),
// not scripted replies or other data.
func isWorkflow(t *testing.T, path string) bool {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.HasPrefix(string(data), "orchestrator:") || strings.Contains(string(data), "\norchestrator:")
}
