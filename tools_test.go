package cogloop_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
)

const toolsWorkflow = `
orchestrator:
  id: tools
  agents: [asker]
agents:
  - id: asker
    type: openai-answer
    model: gpt-4o-mini
    prompt: "Answer: {{ input }}"
    tools: [lookup, shout]
  - id: lookup
    type: scripted
    description: Look a word up.
    prompt: "look up {{ args.query }}"
    responses: {cycle: ["known"]}
  - id: shout
    type: scripted
    description: Shout a word.
    parameters:
      type: object
      properties: {word: {type: string, maxLength: 10}}
      required: [word]
    prompt: "{{ args.word | upper }}"
    responses: ["HEY"]
`

// An LLM agent's scripted model asks for tools; the tools really run (their
// prompts read args), arguments are checked against parameters, and a bad
// call goes back to the model as a tool error. A tool agent is not queued.
func TestToolsRunFromScriptedToolCalls(t *testing.T) {
	wf, err := cogloop.Parse([]byte(toolsWorkflow), "tools.yaml")
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	script, err := scripted.Parse([]byte(`
asker:
  - tool_calls: [{tool: lookup, args: {query: apple}}, {tool: shout, args: {word: 12345678901}}]
  - tool_calls: [{tool: shout, args: {word: hey}}, {tool: lookup, args: "{not json"}]
  - "An apple is known."
`), "s.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "apple", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	assert.Equal(t, "An apple is known.", res.Text())

	var prompts []string
	var results []event.Event
	for _, e := range rec.Events() {
		switch e.Kind {
		case event.AgentEnd:
			prompts = append(prompts, e.Node+": "+e.Prompt)
		case event.ToolResult:
			results = append(results, e)
		}
	}
	assert.Equal(t, []string{"asker › lookup: look up apple", "asker › shout: HEY", "asker: Answer: apple"}, prompts,
		"tools run inside the agent's call with their args, and only there")
	require.Len(t, results, 4)
	// the calls of one round run in parallel: order them as asked
	sort.Slice(results, func(i, j int) bool { return results[i].Data["id"].(string) < results[j].Data["id"].(string) })
	assert.Equal(t, "known", results[0].Response)
	assert.Contains(t, results[1].Error, "the arguments do not match the tool's parameters")
	assert.Contains(t, results[1].Error, "/word")
	assert.Equal(t, "HEY", results[2].Response)
	assert.Contains(t, results[3].Error, "not JSON")
	assert.Equal(t, 2, results[3].Data["round"])
}

// Bad tool definitions are load errors with positions.
func TestToolLoadProblems(t *testing.T) {
	src := strings.NewReplacer("tools: [lookup, shout]", "tools: [lokup, plain]\n    tool_choice: shot",
		"type: object\n      properties: {word: {type: string, maxLength: 10}}", "type: object\n      properties: {word: {type: strin}}").Replace(toolsWorkflow) + `
  - id: plain
    type: scripted
    responses: ["x"]
`
	_, err := cogloop.Parse([]byte(src), "tools.yaml")
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `tools.yaml:10:13: tools names "lokup", which no agent defines; did you mean "lookup"?`)
	assert.Contains(t, msg, `agent "plain" (defined at tools.yaml:27:9) is named in tools but has no description`)
	assert.Contains(t, msg, `tool_choice "shot" is not auto, required, none or one of the tools`)
	assert.Contains(t, msg, `tools.yaml:22:33: agent "shout": parameters is not a valid JSON Schema: at '/properties/word/type'`)
}
