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

const docWorkflow = `orchestrator: {id: doc, agents: [draft, polish, final]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "Draft {{ input }}"}
  - {id: polish, type: openai-answer, model: m, prompt: "Polish"}
  - {id: final, type: openai-answer, model: m, prompt: "Final"}
`

// parseDocument reads back what Result.Document wrote: status, errors, the
// answer, each output with its usage, prompt and error record.
func TestParseDocumentReadsDocument(t *testing.T) {
	wf, err := cogloop.Parse([]byte(docWorkflow), "doc.yaml")
	require.NoError(t, err)
	script := agenttest.Script(t, "draft: [{text: D, usage: {prompt_tokens: 6, completion_tokens: 5}}]\n"+
		"polish: [{text: P, usage: {prompt_tokens: 60, completion_tokens: 50}}]\nfinal: [{error: refused}]\n")
	res, err := wf.Run(context.Background(), "topic", cogloop.WithModels(script))
	require.Error(t, err, "final fails")
	data, err := json.Marshal(res.Document())
	require.NoError(t, err)

	got, err := parseDocument(data, nil)
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

	_, err = parseDocument([]byte(`{"outputs": {}}`), nil)
	assert.ErrorContains(t, err, "not a run document")
	_, err = parseDocument([]byte(`[1]`), nil)
	assert.ErrorContains(t, err, "read run document")
}
