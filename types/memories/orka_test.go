package memories_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/memories"
)

// OrKa's top_k is limit, and config.namespace names the namespace when the
// agent has no top-level namespace.
func TestTopKAndConfigNamespace(t *testing.T) {
	e := newEnv(t, memories.Options{})
	for _, c := range []string{"notes on cats one", "notes on cats two", "notes on cats three"} {
		e.remember(t, "notes", memory.Memory{Content: c})
	}
	wf := e.load(t, `orchestrator: {id: w, agents: [recall]}
agents:
  - id: recall
    type: memory
    prompt: "cats"
    config: {namespace: notes, top_k: 2, similarity_threshold: 0.1}
`)
	out := agenttest.Output(t, e.run(t, wf, "x").Outputs, "recall")
	assert.Equal(t, "notes", out.Fields["namespace"])
	assert.Len(t, memoriesOf(t, out), 2)
}

func TestHybridRankingWithAnEmbedder(t *testing.T) {
	srv := newEmbeddingServer(t)
	e := newEnv(t, memories.Options{})
	emb := fmt.Sprintf("embedder: {provider: openai_compatible, model: embed-small, model_url: %s}", srv.URL)
	wf := e.load(t, fmt.Sprintf(`orchestrator: {id: w, agents: [a, b, recall, plain]}
agents:
  - {id: a, type: memory, namespace: pets, config: {operation: write}, prompt: "My cat sleeps all day", %[1]s}
  - {id: b, type: memory, namespace: pets, config: {operation: write}, prompt: "A kitten plays", %[1]s}
  - id: recall
    type: memory
    namespace: pets
    prompt: "felines sleep"
    %[1]s
    config: {enable_hybrid_search: true, text_weight: 0.5, vector_weight: 0.5, similarity_threshold: 0.1}
  - id: plain
    type: memory
    namespace: pets
    prompt: "felines sleep"
    %[1]s
    config: {similarity_threshold: 0.1}
`, emb))
	res := e.run(t, wf, "x")

	hy := agenttest.Output(t, res.Outputs, "recall")
	assert.Equal(t, "hybrid", hy.Fields["search_type"])
	ms := memoriesOf(t, hy)
	require.Len(t, ms, 2)
	// Both are cats to the embedder (cosine 1); only the first shares a
	// keyword ("sleep") with the query: 0.5×1/2 + 0.5×1 against 0.5×0 + 0.5×1.
	assert.Equal(t, "My cat sleeps all day", ms[0]["content"])
	assert.InDelta(t, 0.75, ms[0]["similarity"], 1e-6)
	assert.InDelta(t, 0.5, ms[1]["similarity"], 1e-6)

	pl := agenttest.Output(t, res.Outputs, "plain")
	assert.Equal(t, "vector", pl.Fields["search_type"])
	for _, m := range memoriesOf(t, pl) {
		assert.InDelta(t, 1.0, m["similarity"], 1e-6, "without hybrid keys the ranking is pure vector")
	}
}

func TestOrKaMemoryConfigKeysWarn(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"index keys", "    config: {force_recreate_index: true, vector_field: content_vector, vector_params: {M: 16}, vector_field_name: v, search_field: c, embed_field: c}\n",
			[]string{
				`wf.yaml:5:14: agent "m": config: force_recreate_index is accepted for OrKa compatibility and ignored: it has no effect (RedisStack index settings`,
				"vector_field is accepted", "vector_params is accepted", "vector_field_name is accepted", "search_field is accepted", "embed_field is accepted"}},
		{"hybrid keys without an embedder", "    config: {enable_hybrid_search: true, vector_weight: 0.7, text_weight: 0.3}\n",
			[]string{"vector_weight is accepted for OrKa compatibility and ignored: it has no effect without an embedder",
				"text_weight is accepted", "enable_hybrid_search is accepted"}},
		{"search keys", "    config: {memory_type: short_term, fallback_to_text: true, enable_vector_search: true, search_params: {}, query_key: q, category: c}\n",
			[]string{"memory_type is accepted", "fallback_to_text is accepted", "enable_vector_search is accepted", "search_params is accepted", "query_key is accepted", "category is accepted"}},
		{"writer keys inside config", "    config: {operation: write, metadata: {a: b}, key_template: k, store_params: {}, store_metadata: true, top_k: 3}\n",
			[]string{"metadata is accepted for OrKa compatibility and ignored: it has no effect here (metadata and key_template belong at the agent's top level",
				"key_template is accepted", "store_params is accepted", "store_metadata is accepted", "top_k does nothing with operation: write"}},
		{"agent keys", "    params: {x: 1}\n    embed_content: true\n    memory_preset: episodic\n",
			[]string{"params is accepted", "embed_content is accepted"}},
		{"two namespaces", "    namespace: a\n    config: {namespace: b}\n", []string{`namespace "b" is overridden by the top-level namespace "a"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := strings.Join(warnings(t, agentHead+tc.body), "\n")
			for _, w := range tc.want {
				assert.Contains(t, ws, w)
			}
			_, err := cogloop.Parse([]byte(agentHead+tc.body), "wf.yaml", cogloop.WithStrict())
			require.Error(t, err, "strict mode makes the warnings errors")
			assert.Contains(t, err.Error(), "(an error under strict mode)")
		})
	}
}

func TestMemoryKeyErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"top_k and limit", "    config: {top_k: 2, limit: 3}\n", `wf.yaml:5:14: agent "m": config: top_k is another name for limit: give one of them`},
		{"zero weights", "    embedder: {provider: openai, api_key_env: NOPE}\n    config: {text_weight: 0, vector_weight: 0}\n", "text_weight and vector_weight are both 0"},
		{"unknown config key", "    config: {vectr_weight: 0.2}\n", `unknown key "vectr_weight" (did you mean "vector_weight"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, loadErr(t, agentHead+tc.body).Error(), tc.want)
		})
	}
}
