package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
)

const toolReplayWorkflow = `orchestrator: {id: tooled, agents: [asker]}
agents:
  - id: asker
    type: openai-answer
    model: gpt-4o-mini
    prompt: "Answer: {{ input }}"
    tools: [lookup]
  - id: lookup
    type: scripted
    description: Look a word up.
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    prompt: "{{ args.query }}"
    responses: {cycle: [a sweet fruit]}
`

// writeToolCallReply answers a chat-completions request as OpenAI does when
// the model calls a tool.
func writeToolCallReply(w http.ResponseWriter, id, name, args string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-2","object":"chat.completion","created":1700000000,"model":"gpt-test",
"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]},"finish_reason":"tool_calls"}],
"usage":{"prompt_tokens":20,"completion_tokens":8,"total_tokens":28}}`, id, name, args)
}

// A recorded run whose model called a tool, with a secret in its input:
// `cogloop script` writes the tool call in the form --script reads, and the
// script reproduces the same tool call and answer offline; --replay answers
// the tool round's request (with its messages and tools) from the record,
// the secret scrubbed on both sides, and warns that the scripted tool agent
// is not replayed.
func TestScriptAndReplayOfToolCalls(t *testing.T) {
	const key = "sk-live-tool0123456789abcdef"
	var (
		mu    sync.Mutex
		calls int
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			writeToolCallReply(w, "call_abc", "lookup", `{"query":"fig"}`)
			return
		}
		agenttest.WriteChatReply(w, "A fig is a sweet fruit.", 30, 6)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	t.Setenv(envRecordDir, filepath.Join(dir, "runs"))
	wf := writeFile(t, dir, "wf.yaml", toolReplayWorkflow)
	input := "what is a fig? (key " + key + ")"
	code, stdout, errs := runCLI(t, "run", wf, input, "--run-id", "tools1", "-v")
	require.Equal(t, exitOK, code, errs)
	require.Equal(t, "A fig is a sweet fruit.\n", stdout)
	require.Equal(t, 2, calls)
	assert.Contains(t, errs, `[tool round 1] lookup {"query":"fig"} → a sweet fruit`)

	code, script, errs := runCLI(t, "script", "tools1")
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, script, key)
	assert.Contains(t, script, `tool_calls:`)
	assert.Contains(t, script, `{id: call_abc, tool: lookup, args: '{"query":"fig"}'}`, "the scripted parser's keys")
	scriptFile := writeFile(t, dir, "replies.yaml", script)

	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // offline from here on
	code, stdout, errs = runCLI(t, "run", wf, input, "--script", scriptFile, "--no-record", "-v")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "A fig is a sweet fruit.\n", stdout, "the script reproduces the answer")
	assert.Contains(t, errs, `[tool round 1] lookup {"query":"fig"} → a sweet fruit`, "and the tool call")

	code, stdout, errs = runCLI(t, "run", wf, input, "--replay", "tools1", "--no-record", "-v")
	require.Equal(t, exitOK, code, errs)
	assert.Equal(t, "A fig is a sweet fruit.\n", stdout)
	assert.Contains(t, errs, `[tool round 1] lookup {"query":"fig"} → a sweet fruit`)
	assert.NotContains(t, errs, "differs", "the secret in the request is scrubbed before comparing")
	assert.Contains(t, errs, `agent "lookup" is of type scripted: it answers from its own responses:, not from the recorded run`)
	assert.Equal(t, 1, strings.Count(errs, `agent "lookup" is of type scripted`), "once per agent")
	assert.NotContains(t, errs, `agent "asker" is of type scripted`)

	// The tool round's request is compared too: a changed tool description
	// shows up in the diff of the first call.
	edited := writeFile(t, dir, "edited.yaml", strings.Replace(toolReplayWorkflow, "Look a word up.", "Look a word up, briefly.", 1))
	code, _, errs = runCLI(t, "run", edited, input, "--replay", "tools1", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `call 1 of agent "asker"`)
	assert.Contains(t, errs, "+ tool lookup: Look a word up, briefly.")

	// A changed tool result changes the second call's messages.
	other := writeFile(t, dir, "other.yaml", strings.Replace(toolReplayWorkflow, "a sweet fruit]", "a tree]", 1))
	code, _, errs = runCLI(t, "run", other, input, "--replay", "tools1", "--no-record")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `call 2 of agent "asker"`)
	assert.Contains(t, errs, "-   a sweet fruit")
	assert.Contains(t, errs, "+   a tree")
}
