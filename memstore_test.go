package cogloop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
)

const rememberingLoop = `orchestrator: {id: same-id, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 1
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "{{ get_past_loops() | length }}"}
`

// Without WithMemory, the runs of one Workflow share its in-memory store and
// another Workflow (even one with the same id) has its own.
func TestDefaultMemoryIsPerWorkflow(t *testing.T) {
	parse := func() *cogloop.Workflow {
		wf, err := cogloop.Parse([]byte(rememberingLoop), "mem.yaml")
		require.NoError(t, err)
		return wf
	}
	seen := func(wf *cogloop.Workflow) int {
		res, err := wf.Run(context.Background(), "x", cogloop.WithModels(agenttest.Script(t, "w: {cycle: [ok]}\n")))
		require.NoError(t, err)
		out, _ := res.Outputs.Get("improve")
		return len(out.Map()["past_loops"].([]any))
	}
	a, b := parse(), parse()
	assert.Equal(t, 1, seen(a))
	assert.Equal(t, 2, seen(a), "a's second run reads a's history")
	assert.Equal(t, 1, seen(b), "b does not")
}
