package cogloop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/types/human"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every workflow under examples/ loads without problems (so without template
// name warnings), and every one that has scripted replies next to it runs
// offline to a response without an undefined_name warning.
func TestExamplesLoadAndRunOffline(t *testing.T) {
	var found int
	err := filepath.WalkDir("examples", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") || filepath.Base(path) == "replies.yaml" {
			return err
		}
		found++
		t.Run(path, func(t *testing.T) {
			wf, err := cogloop.Load(path)
			require.NoError(t, err)
			assert.Empty(t, wf.Warnings, "examples are written without warnings")
			replies := filepath.Join(filepath.Dir(path), "replies.yaml")
			data, err := os.ReadFile(replies)
			require.NoError(t, err, "every example runs offline: add its replies.yaml")
			script, err := scripted.Parse(data, replies)
			require.NoError(t, err)
			rec := &agenttest.Recorder{}
			// A person answers the human steps: approves, or scores 0.9.
			person := cogloop.WithHuman(func(_ context.Context, q human.Question) (human.Answer, error) {
				return human.Answer{Kind: q.Kind, Approved: true, Score: 0.9, By: "example test"}, nil
			})
			res, err := wf.Run(context.Background(), "an example topic", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe), person)
			require.NoError(t, err)
			for _, e := range rec.Events() {
				if e.Kind == event.Warning {
					assert.NotEqual(t, "undefined_name", e.Data["code"], "every name an example's template reads is bound: %s", e.Message)
				}
			}
			assert.Empty(t, res.Failed(), "no agent fails in an example")
			assert.NotEmpty(t, res.Text())
		})
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, found, 3)
}
