package cogloop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docsSnippet has the shapes of OrKa's documentation snippets that did not
// load: LLM agents without a prompt, keys OrKa's docs use and its code never
// reads, graph-scout settings at the top level instead of under params:.
const docsSnippet = `orchestrator: {id: docs, strategy: sequential, agents: [ask, judge, scout]}
agents:
  - id: ask
    type: local_llm
    provider: ollama
    model: llama3
    confidence_threshold: 0.8
    fallback_response: "I don't know"
    rate_limit: 10
    resources: {gpu: 1}
    error_handling: {on_failure: retry}
    schema: {answer: string}
    max_concurrency: 2
  - id: judge
    type: openai-answer
  - id: scout
    type: graph-scout
    k_beam: 3
    max_depth: 2
  - id: helper
    type: local_llm
    provider: ollama
    prompt: "help with {{ input }}"
`

func TestOrKaDocsSnippetGapsLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.yml")
	require.NoError(t, os.WriteFile(path, []byte(docsSnippet), 0o600))
	wf, err := cogloop.Load(path)
	require.NoError(t, err)
	var warned []string
	for _, w := range wf.Warnings {
		warned = append(warned, w.Msg)
	}
	all := strings.Join(warned, "\n")
	for _, k := range []string{"confidence_threshold", "fallback_response", "rate_limit", "resources", "error_handling", "schema", "max_concurrency"} {
		assert.Contains(t, warned, `agent "ask": `+k+` is accepted for OrKa compatibility and ignored`)
	}
	assert.Contains(t, all, `agent "ask": no prompt: OrKa's default "Input: {{ input }}" is used`)
	assert.Contains(t, all, `agent "judge": no prompt: OrKa's default "Input: {{ input }}" is used`)
	for _, k := range []string{"k_beam", "max_depth"} {
		assert.Contains(t, all, `agent "scout": `+k+` is accepted for OrKa compatibility and ignored: it has no effect at the top level: OrKa reads graph-scout settings only under params:, so move it there`)
	}

	// The default prompt is OrKa's: the input follows "Input: ".
	script, err := scripted.Parse([]byte("ask: [fine]\njudge: [good]\n"), "replies.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	_, err = wf.Run(context.Background(), "Is the sky blue?", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	var prompts []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && (e.Agent == "ask" || e.Agent == "judge") {
			prompts = append(prompts, e.Prompt)
		}
	}
	assert.Equal(t, []string{"Input: Is the sky blue?", "Input: Is the sky blue?"}, prompts)

	// Under strict mode each of them is an error.
	strict := strings.Replace(docsSnippet, "strategy: sequential,", "strategy: sequential, strict: true,", 1)
	require.NoError(t, os.WriteFile(path, []byte(strict), 0o600))
	_, err = cogloop.Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "confidence_threshold is accepted for OrKa compatibility and ignored")
	assert.Contains(t, err.Error(), "no prompt: OrKa's default")
}
