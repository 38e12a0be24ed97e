package memories_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/memories"
)

func TestRAGRetrievesThenAnswers(t *testing.T) {
	e := newEnv(t, memories.Options{})
	e.remember(t, "docs", memory.Memory{Content: "The loop node stops when the score reaches the threshold.", Metadata: map[string]string{"source": "design"}})
	e.remember(t, "docs", memory.Memory{Content: "Redis keeps the loop history across runs."})
	e.remember(t, "docs", memory.Memory{Content: "Bananas are yellow."})
	wf := e.load(t, `
orchestrator: {id: r, strategy: sequential, agents: [qa]}
agents:
  - id: qa
    type: rag
    namespace: docs
    top_k: 2
    prompt: "When does the loop stop at the threshold score?"
`)
	rec := &recorder{}
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(e.store), cogloop.WithModels(agenttest.Script(t, `qa: ["It stops at the threshold."]`)),
		cogloop.WithObserver(rec.observe))
	require.NoError(t, err)
	out := agenttest.Output(t, res.Outputs, "qa")
	assert.Equal(t, "It stops at the threshold.", out.Response)
	sources := out.Fields["sources"].([]any)
	require.Len(t, sources, 2)
	first := sources[0].(map[string]any)
	assert.Equal(t, "The loop node stops when the score reaches the threshold.", first["content"])
	assert.Equal(t, map[string]any{"source": "design"}, first["metadata"])
	assert.Equal(t, "Redis keeps the loop history across runs.", sources[1].(map[string]any)["content"])
	assert.Equal(t, map[string]any{"answer": "It stops at the threshold.", "sources": sources}, out.Fields["result"])
	assert.Equal(t, "keyword", out.Fields["search_type"])
	assert.Equal(t, `Based on the following context, answer the question. If the context doesn't contain relevant information, say so.

Context:
Source 1:
The loop node stops when the score reaches the threshold.

Source 2:
Redis keeps the loop history across runs.


Question: When does the loop stop at the threshold score?

Answer:`, out.Prompt)
}

// recorder keeps events.
type recorder struct{ events []event.Event }

func (r *recorder) observe(e event.Event) { r.events = append(r.events, e) }

func TestRAGWithoutSourcesAsksNoModel(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: r, strategy: sequential, agents: [qa]}
agents:
  - {id: qa, type: rag, namespace: empty, prompt: "{{ input }}"}
`)
	// The script has no replies for qa: a model call would fail the run.
	res, err := wf.Run(context.Background(), "anything at all", cogloop.WithMemory(e.store), cogloop.WithModels(agenttest.Script(t, `other: ["x"]`)))
	require.NoError(t, err)
	out := agenttest.Output(t, res.Outputs, "qa")
	assert.Equal(t, memories.NoRAGSources, out.Response)
	assert.Equal(t, []any{}, out.Fields["sources"])
}

func TestRAGWithAnEmbedder(t *testing.T) {
	srv := newEmbeddingServer(t)
	e := newEnv(t, memories.Options{})
	emb := fmt.Sprintf("embedder: {provider: openai_compatible, model: embed-small, model_url: %s}", srv.URL)
	wf := e.load(t, fmt.Sprintf(`
orchestrator: {id: r, strategy: sequential, agents: [cat, dog, qa]}
agents:
  - {id: cat, type: memory, namespace: pets, config: {operation: write}, prompt: "My cat sleeps all day", %[1]s}
  - {id: dog, type: memory, namespace: pets, config: {operation: write}, prompt: "The dog barks at night", %[1]s}
  - {id: qa, type: rag, namespace: pets, prompt: "What do felines do?", %[1]s, llm_config: {model: gpt-4o-mini, temperature: 0.1}}
`, emb))
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(e.store), cogloop.WithModels(agenttest.Script(t, `qa: ["They sleep."]`)))
	require.NoError(t, err)
	out := agenttest.Output(t, res.Outputs, "qa")
	assert.Equal(t, "vector", out.Fields["search_type"])
	sources := out.Fields["sources"].([]any)
	require.Len(t, sources, 1, "the dog is below the 0.7 cosine threshold")
	assert.Equal(t, "My cat sleeps all day", sources[0].(map[string]any)["content"])
	assert.Equal(t, "They sleep.", out.Response)
}

func TestRAGLoadErrors(t *testing.T) {
	err := loadErr(t, `
orchestrator: {id: r, strategy: sequential, agents: [qa]}
agents:
  - id: qa
    type: rag
    top_k: 0
    score_threshold: 2
    llm_config: {provider: nope}
`)
	msg := err.Error()
	assert.Contains(t, msg, "wf.yaml:6:5")
	assert.Contains(t, msg, "top_k must be between 1 and 1000")
	assert.Contains(t, msg, "wf.yaml:7:5")
	assert.Contains(t, msg, "score_threshold must be between 0 and 1")
	assert.Contains(t, msg, "wf.yaml:8:18")
	assert.Contains(t, msg, "provider")

	ws := warnings(t, `
orchestrator: {id: r, strategy: sequential, agents: [qa]}
agents:
  - {id: qa, type: rag, max_concurrency: 5, queue: q}
`)
	require.Len(t, ws, 2)
	assert.Contains(t, ws[0]+ws[1], "max_concurrency is accepted for OrKa compatibility and ignored")
}
