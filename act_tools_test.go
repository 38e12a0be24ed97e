package cogloop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
)

// TestBuiltinToolsAsTools: a model (scripted) writes a file with write_file,
// runs a command on it and reads it back, in two rounds; the tools really run
// and what they return goes back to the model.
func TestBuiltinToolsAsTools(t *testing.T) {
	root := t.TempDir()
	src := fmt.Sprintf(`orchestrator: {id: w, agents: [coder]}
agents:
  - id: coder
    type: openai-answer
    model: gpt-test
    prompt: "Write it: {{ input }}"
    tools: [save, count, show]
  - id: save
    type: write_file
    description: Write a file.
    parameters:
      type: object
      properties: {path: {type: string}, content: {type: string}}
      required: [path, content]
    root: %[1]q
  - id: show
    type: read_file
    description: Read a file.
    parameters: {type: object, properties: {path: {type: string}}, required: [path]}
    root: %[1]q
  - id: count
    type: command
    description: Count the lines of a file.
    parameters: {type: object, properties: {file: {type: string}}, required: [file]}
    command: [wc, -l, "{{ args.file }}"]
    dir: %[1]q
`, root)
	script := agenttest.Script(t, `
coder:
  - tool_calls: [{tool: save, args: {path: a/b.txt, content: "one\ntwo\n"}}]
  - tool_calls: [{tool: count, args: {file: a/b.txt}}, {tool: show, args: {path: ../escape.txt}}]
  - done
`)
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	res, err := wf.Run(context.Background(), "x", cogloop.WithModels(script))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "a", "b.txt"))
	require.NoError(t, err)
	assert.Equal(t, "one\ntwo\n", string(data))
	out, ok := res.Outputs.Get("coder")
	require.True(t, ok)
	calls := out.Fields["tool_calls"].([]any)
	require.Len(t, calls, 3)
	result := calls[1].(map[string]any)["result"].(string)
	assert.Contains(t, result, `"exit_code":0`, "the model reads the command's fields")
	assert.Contains(t, result, `"stdout":"2 a/b.txt\n"`)
	assert.Contains(t, calls[2].(map[string]any)["error"], "leaves the root", "a refused path is a tool error the model sees")
}
