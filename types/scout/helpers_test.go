package scout_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/cogloop/cogloop/types/scout"
)

func registry() *agents.Registry {
	r := agenttest.Registry()
	scout.Register(r)
	r.MustRegister("loop", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		c.Accept("internal_workflow")
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{}, nil }), nil
	})
	return r
}

func loadWorkflow(t *testing.T, src string) *orchestrator.Workflow {
	t.Helper()
	w, _, err := orchestrator.Parse([]byte(src), "wf.yaml", registry())
	require.NoError(t, err)
	return w
}

func loadErr(t *testing.T, src string) string {
	t.Helper()
	_, _, err := orchestrator.Parse([]byte(src), "wf.yaml", registry())
	require.Error(t, err)
	return err.Error()
}

// run runs w on input and returns its outputs and events.
func run(t *testing.T, w *orchestrator.Workflow, input any) (agents.Output, *agenttest.Recorder, error) {
	t.Helper()
	rec := &agenttest.Recorder{}
	out, err := w.Run(context.Background(), agents.Input{Value: input, Run: &agents.Run{ID: "r", Observe: rec.Observe}})
	return out, rec, err
}

func parse(src string) (*orchestrator.Workflow, []load.Problem, error) {
	return orchestrator.Parse([]byte(src), "wf.yaml", registry())
}
