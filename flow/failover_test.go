package flow_test

import (
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailoverTakesTheFirstValidChildInOrder(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [fo, after]}
agents:
  - id: fo
    type: failover
    children:
      - {id: primary, type: fail, message: rate limited}
      - {id: blank, type: const, response: "  "}
      - {id: backup, type: scripted, prompt: "backup for {{ get_input() }}", responses: [{text: "backup answer", usage: {prompt_tokens: 4, completion_tokens: 2}}]}
      - {id: never, type: const, response: not reached}
  - {id: after, type: echo, prompt: "{{ previous_outputs.fo.response }} from {{ previous_outputs.fo.successful_child }} ({{ previous_outputs.fo.backup.response }})"}
`)
	out, rec, err := run(t, wf, "tides")
	require.NoError(t, err)
	assert.Equal(t, "backup answer from backup (backup answer)", out.Response)
	fo := get(t, out.Children, "fo")
	assert.Equal(t, "backup for tides", fo.Prompt)
	assert.Equal(t, agents.Usage{PromptTokens: 4, CompletionTokens: 2}, fo.Usage)
	assert.Equal(t, []string{"primary", "blank", "backup"}, fo.Children.IDs())
	assert.Equal(t, "backup answer", fo.Fields["result"].(map[string]any)["response"])
	assert.Equal(t, []string{"fo", "after"}, out.Children.IDs(), "children are not workflow agents")

	var tried []string
	for _, e := range rec.Events() {
		if e.Kind == agents.EventAgentStart {
			tried = append(tried, e.Node)
		}
	}
	assert.Equal(t, []string{"fo", "fo › primary", "fo › blank", "fo › backup", "after"}, tried)
}

func TestFailoverWhenEveryChildFails(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [fo, after]}
agents:
  - id: fo
    type: failover
    children:
      - {id: first, type: fail, message: timeout}
      - {id: second, type: panic, message: kaboom}
      - {id: third, type: const, response: ""}
  - {id: after, type: const, response: goes on}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	fo := get(t, out.Children, "fo")
	require.True(t, fo.Failed())
	assert.Contains(t, fo.Err, "fo: every child failed: first: timeout; second: panic: kaboom")
	assert.Contains(t, fo.Err, "; third: empty response")
	assert.Equal(t, "goes on", out.Response)
}
