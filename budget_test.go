package cogloop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
)

const budgetWorkflow = `orchestrator:
  id: budgeted
  agents: [draft, polish, final]
  budget: {max_tokens: 250, max_cost: 1}
  pricing: {house-model: {prompt: 1, completion: 3}}
agents:
  - {id: draft, type: openai-answer, model: house-model, max_tokens: 50, prompt: "Draft {{ input }}"}
  - {id: polish, type: openai-answer, model: house-model, max_tokens: 50, prompt: "Polish"}
  - {id: final, type: openai-answer, model: house-model, max_tokens: 50, prompt: "Final"}
`

// TestRunReportsUsageCostAndBudget: the run's usage and cost are in the
// Result and in run.end; the call that would pass the budget is refused.
func TestRunReportsUsageCostAndBudget(t *testing.T) {
	wf, err := cogloop.Parse([]byte(budgetWorkflow), "budget.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse([]byte(`
draft: [{text: D, usage: {prompt_tokens: 60, completion_tokens: 50}}]
polish: [{text: P, usage: {prompt_tokens: 60, completion_tokens: 50}}]
final: [F]
`), "replies.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "topic", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.ErrorIs(t, err, cogloop.ErrRunFailed, "the final agent was refused")
	assert.Equal(t, cogloop.StatusFailed, res.Status)

	assert.Equal(t, "P", res.Response, "final was refused; polish answered last")
	assert.Contains(t, res.Failed()["final"], "budget exceeded")
	assert.True(t, res.BudgetExceeded)
	assert.Equal(t, 220, res.Usage.Total())
	want := 2 * (60*1.0/1000 + 50*3.0/1000)
	assert.InDelta(t, want, res.Usage.Cost, 1e-12)

	events := rec.Events()
	end := events[len(events)-1]
	require.Equal(t, event.RunEnd, end.Kind)
	require.NotNil(t, end.Usage)
	assert.Equal(t, 220, end.Usage.Total())
	assert.InDelta(t, want, end.Data["cost"], 1e-12)
	assert.Equal(t, map[string]any{"max_tokens": 250, "max_cost": 1.0, "exceeded": true}, end.Data["budget"])
	// run.start carries the limits, for a live view of spend against them.
	require.Equal(t, event.RunStart, events[0].Kind)
	assert.Equal(t, map[string]any{"max_tokens": 250, "max_cost": 1.0}, events[0].Data["budget"])
}

func TestRunWithoutBudgetStillPrices(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [a]}
agents: [{id: a, type: openai-answer, model: gpt-4o-mini, prompt: hi}]
`), "w.yaml", cogloop.WithPricing(spend.Pricing{"gpt-4o-mini": {Prompt: 10, Completion: 10}}))
	require.NoError(t, err)
	script, err := scripted.Parse([]byte("a: [{text: A, usage: {prompt_tokens: 100, completion_tokens: 100}}]"), "r.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "x", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	assert.InDelta(t, 2.0, res.Usage.Cost, 1e-12, "WithPricing replaces the built-in prices")
	assert.False(t, res.BudgetExceeded)
	events := rec.Events()
	end := events[len(events)-1]
	assert.InDelta(t, 2.0, end.Data["cost"], 1e-12)
	assert.NotContains(t, end.Data, "budget")
}
