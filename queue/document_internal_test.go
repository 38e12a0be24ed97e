package queue

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
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

// parseDocument reads back what Result.Document wrote: status, errors, the
// answer, each output with its usage, prompt and error record.
func TestParseDocumentReadsDocument(t *testing.T) {
	wf, err := cogloop.Parse([]byte(budgetWorkflow), "budget.yaml")
	require.NoError(t, err)
	script := agenttest.Script(t, `
draft: [{text: D, usage: {prompt_tokens: 60, completion_tokens: 50}}]
polish: [{text: P, usage: {prompt_tokens: 60, completion_tokens: 50}}]
final: [F]
`)
	res, err := wf.Run(context.Background(), "topic", cogloop.WithModels(script))
	require.Error(t, err, "final is refused by the budget")
	data, err := json.Marshal(res.Document())
	require.NoError(t, err)

	got, err := parseDocument(data)
	require.NoError(t, err)
	assert.Equal(t, res.RunID, got.RunID)
	assert.Equal(t, cogloop.StatusFailed, got.Status)
	assert.Equal(t, "P", got.Text())
	require.Len(t, got.Errors, len(res.Errors))
	assert.Equal(t, res.Errors[0].Error(), got.Errors[0].Error())
	assert.Equal(t, res.Failed(), got.Failed())
	assert.Equal(t, res.Usage.Total(), got.Usage.Total())
	polish := agenttest.Output(t, got.Outputs, "polish")
	assert.Equal(t, "P", polish.Response)
	assert.Equal(t, 110, polish.Usage.Total())
	assert.Equal(t, "Polish", polish.Prompt)

	_, err = parseDocument([]byte(`{"outputs": {}}`))
	assert.ErrorContains(t, err, "not a run document")
	_, err = parseDocument([]byte(`[1]`))
	assert.ErrorContains(t, err, "read run document")
}
