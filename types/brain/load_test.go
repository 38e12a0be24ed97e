package brain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/types/brain"
)

func registry() *agents.Registry {
	r := agents.NewRegistry()
	brain.Register(r)
	return r
}

func TestLoadErrors(t *testing.T) {
	_, err := cogloop.Parse([]byte(`
orchestrator: {id: b, strategy: sequential, agents: [x, y]}
agents:
  - id: x
    type: brain
    operation: forget
    namespace: "  "
  - id: y
    type: brain
    operaton: recall
`), "wf.yaml", cogloop.WithRegistry(registry()))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `wf.yaml:6:5: agent "x": operation must be one of learn, recall, feedback, learn_recipe, learn_anti, learn_path, record_episode, recall_episodes, not "forget"`)
	assert.Contains(t, msg, `wf.yaml:7:5: agent "x": namespace must not be empty`)
	assert.Contains(t, msg, `wf.yaml:10:5: agent "y": unknown key "operaton" (did you mean "operation"?)`)

	wf, err := cogloop.Parse([]byte(`
orchestrator: {id: b, strategy: sequential, agents: [x]}
agents:
  - {id: x, type: brain, operation: recall, params: {timeout: 30, temperature: 0.2}}
`), "wf.yaml", cogloop.WithRegistry(registry()))
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Contains(t, wf.Warnings[0].Error(), "temperature is accepted for OrKa compatibility and ignored")
}

func TestWithoutAStoreTheCallFails(t *testing.T) {
	a := &brain.Agent{ID: "x", Operation: "learn"}
	_, err := a.Run(context.Background(), agents.Input{Value: "Identify the cause", Run: &agents.Run{ID: "r"}})
	require.ErrorIs(t, err, brain.ErrNoStore)
	assert.Equal(t, retry.ClassPermanent, retry.Classify(err), "no retry can make a store appear")
}
