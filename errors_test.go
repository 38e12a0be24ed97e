package cogloop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
)

// A RunError unwraps to the failure it records: errors.Is and errors.As reach
// a provider's call error and an empty reply behind passes the loop survived.
func TestRunErrorsUnwrapToTheirCause(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: errs, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 3
    max_failed_passes: 3
    score_threshold: 0.9
    score_extraction_pattern: "SCORE: ([0-9.]+)"
    internal_workflow:
      orchestrator: {id: inner, agents: [writer]}
      agents:
        - {id: writer, type: openai-answer, model: m, retry: none, prompt: "write"}
`), "errs.yaml")
	require.NoError(t, err)
	script := agenttest.Script(t, `
writer:
  - {error: "overloaded", status: 503}
  - ""
  - "SCORE: 0.95"
`)
	res, err := wf.Run(context.Background(), "task", cogloop.WithModels(script))
	require.NoError(t, err, "the loop survived both failures")
	require.Len(t, res.Errors, 2)

	var ce *retry.CallError
	require.ErrorAs(t, res.Errors[0], &ce, "%v", res.Errors[0])
	assert.Equal(t, 503, ce.Status)
	assert.Equal(t, "improve › iteration 1 › writer", res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[1], agents.ErrEmptyReply)
	assert.NotErrorIs(t, res.Errors[0], agents.ErrEmptyReply)
}

// The error a failed run returns reaches the sentinel of its first failure.
func TestRunErrorReachesBudgetExceeded(t *testing.T) {
	wf, err := cogloop.Parse([]byte(budgetWorkflow), "budget.yaml")
	require.NoError(t, err)
	script := agenttest.Script(t, `
draft: [{text: D, usage: {prompt_tokens: 60, completion_tokens: 50}}]
polish: [{text: P, usage: {prompt_tokens: 60, completion_tokens: 50}}]
final: [F]
`)
	res, err := wf.Run(context.Background(), "topic", cogloop.WithModels(script))
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	assert.ErrorIs(t, err, spend.ErrBudgetExceeded)
	require.NotEmpty(t, res.Errors)
	assert.ErrorIs(t, res.Errors[0], spend.ErrBudgetExceeded)
	var re cogloop.RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "final", re.Agent)
}
