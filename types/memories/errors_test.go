package memories_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/memories"
)

// embeddingServer speaks OpenAI's /v1/embeddings. Its vectors have one axis
// per animal, so "felines" is close to "cat" with no keyword in common.
type embeddingServer struct {
	*httptest.Server
	mu     sync.Mutex
	inputs []string
	fail   int // answer this many requests with 503 first
}

func newEmbeddingServer(t *testing.T) *embeddingServer {
	t.Helper()
	s := &embeddingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.inputs = append(s.inputs, body.Input...)
		fail := s.fail > 0
		if fail {
			s.fail--
		}
		s.mu.Unlock()
		if r.URL.Path != "/v1/embeddings" || fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
			return
		}
		data := make([]map[string]any, len(body.Input))
		for i, text := range body.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": animalVector(text)}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body.Model})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *embeddingServer) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

func animalVector(text string) []float32 {
	t := strings.ToLower(text)
	v := []float32{0.01, 0.01, 0.01}
	for i, words := range [][]string{{"cat", "feline", "kitten"}, {"dog", "canine", "puppy"}, {"car", "engine"}} {
		for _, w := range words {
			if strings.Contains(t, w) {
				v[i] = 1
			}
		}
	}
	return v
}

func vectorWorkflow(url string) string {
	return fmt.Sprintf(`
orchestrator: {id: v, agents: [cat, dog, recall]}
agents:
  - id: cat
    type: memory
    namespace: pets
    config: {operation: write}
    prompt: "My cat sleeps all day"
    embedder: {provider: openai_compatible, model: embed-small, model_url: %[1]s}
  - id: dog
    type: memory
    namespace: pets
    config: {operation: write}
    prompt: "The dog barks at night"
    embedder: {provider: openai_compatible, model: embed-small, model_url: %[1]s}
  - id: recall
    type: memory
    namespace: pets
    prompt: "Tell me about felines"
    embedder: {provider: openai_compatible, model: embed-small, model_url: %[1]s/v1/embeddings}
`, url)
}

func TestVectorSimilarity(t *testing.T) {
	srv := newEmbeddingServer(t)
	e := newEnv(t, memories.Options{})
	res := e.run(t, e.load(t, vectorWorkflow(srv.URL)), "x")

	assert.Equal(t, true, agenttest.Output(t, res.Outputs, "cat").Fields["vector_enabled"])
	r := agenttest.Output(t, res.Outputs, "recall")
	assert.Equal(t, "vector", r.Fields["search_type"])
	ms := memoriesOf(t, r)
	require.Len(t, ms, 1, "the dog is below the 0.6 cosine threshold")
	assert.Equal(t, "My cat sleeps all day", ms[0]["content"])
	assert.InDelta(t, 1.0, ms[0]["similarity"], 0.01)
	assert.Equal(t, []string{"My cat sleeps all day", "The dog barks at night", "Tell me about felines"}, srv.Inputs())

	// Keyword overlap alone finds nothing: "felines" shares no keyword.
	kw := e.run(t, e.load(t, readerYAML("pets", "similarity_threshold: 0.01")), "Tell me about felines")
	assert.Empty(t, memoriesOf(t, agenttest.Output(t, kw.Outputs, "recall")))
}

func TestEmbeddingRetriesAndFailures(t *testing.T) {
	t.Run("a 503 is retried", func(t *testing.T) {
		srv := newEmbeddingServer(t)
		srv.fail = 1
		var waits []time.Duration
		e := newEnv(t, memories.Options{Sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return ctx.Err()
		}})
		e.run(t, e.load(t, vectorWorkflow(srv.URL)), "x")
		assert.Len(t, waits, 1)
		assert.Len(t, srv.Inputs(), 4, "three texts, one of them twice")
	})
	t.Run("a failure is the agent's error and names the URL", func(t *testing.T) {
		srv := newEmbeddingServer(t)
		e := newEnv(t, memories.Options{})
		wf := e.load(t, fmt.Sprintf(`
orchestrator: {id: v, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: n
    config: {operation: write}
    retry: none
    embedder: {provider: ollama, model: nomic-embed-text, model_url: %s}
`, srv.URL))
		res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(e.store))
		require.ErrorIs(t, err, cogloop.ErrRunFailed, "the final agent failed")
		msg := res.Failed()["remember"]
		assert.Contains(t, msg, "embed the content")
		assert.Contains(t, msg, srv.URL)
		assert.Contains(t, msg, "HTTP 503")
		ms, err := e.store.Recall(context.Background(), "n", memory.Query{})
		require.NoError(t, err)
		assert.Empty(t, ms, "nothing stored without its embedding")
	})
}

// failingStore fails every memory operation the way a networked store does.
type failingStore struct {
	memory.Store
	err error
}

func (f failingStore) Remember(context.Context, string, memory.Memory) error { return f.err }
func (f failingStore) Recall(context.Context, string, memory.Query) ([]memory.Match, error) {
	return nil, f.err
}

func TestStoreErrorsAreAgentErrors(t *testing.T) {
	e := newEnv(t, memories.Options{})
	down := failingStore{Store: e.store, err: fmt.Errorf("redis at 127.0.0.1:6390: %w", memory.ErrUnavailable)}
	wf := e.load(t, fmt.Sprintf(roundTrip, "n"))
	res, err := wf.Run(context.Background(), "France", cogloop.WithMemory(down))
	require.NoError(t, err, "a failed agent is an error record; the run goes on")
	failed := res.Failed()
	for _, id := range []string{"remember", "recall"} {
		assert.Contains(t, failed[id], "redis at 127.0.0.1:6390", id)
		assert.Contains(t, failed[id], memory.ErrUnavailable.Error(), id)
	}
}

func buildAgent(t *testing.T, src string) agents.Agent {
	t.Helper()
	reg := agents.NewRegistry()
	memories.Register(reg)
	a, probs := agenttest.Build(t, reg, src, nil)
	require.NoError(t, probs.Err())
	return a
}

func TestRunWithoutStore(t *testing.T) {
	for _, op := range []string{"read", "write"} {
		a := buildAgent(t, "id: m\ntype: memory\nconfig: {operation: "+op+"}\n")
		for name, run := range map[string]*agents.Run{"no run": nil, "run without memory": {ID: "r"}} {
			t.Run(op+" "+name, func(t *testing.T) {
				_, err := a.Run(context.Background(), agents.Input{Value: "x", Run: run})
				require.ErrorIs(t, err, memories.ErrNoStore)
				assert.Contains(t, err.Error(), "no memory store")
			})
		}
	}
}

func TestWriterFailsOnEmptyContentOrKey(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: w, agents: [empty, nokey]}
agents:
  - {id: empty, type: memory, namespace: n, config: {operation: write}, prompt: "{{ input.missing }}"}
  - {id: nokey, type: memory, namespace: n, config: {operation: write}, key_template: "{{ input.missing }}"}
`)
	res, err := wf.Run(context.Background(), map[string]any{"x": 1}, cogloop.WithMemory(e.store))
	require.ErrorIs(t, err, cogloop.ErrRunFailed, "the final agent failed")
	assert.Contains(t, res.Failed()["empty"], "nothing to store")
	assert.Contains(t, res.Failed()["nokey"], "key_template rendered empty")
}

const agentHead = `orchestrator: {id: w, agents: [m]}
agents:
  - id: m
    type: memory
`

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"unknown operation", "    config:\n      operation: delete\n", []string{"wf.yaml:6:7:", `operation must be read or write, not "delete"`}},
		{"unknown config key", "    config: {limt: 3}\n", []string{"wf.yaml:5:14:", `unknown key "limt" (did you mean "limit"?)`}},
		{"unknown key", "    namspace: x\n", []string{"wf.yaml:5:5:", `unknown key "namspace" (did you mean "namespace"?)`}},
		{"limit", "    config: {limit: 0}\n", []string{"limit must be between 1 and 1000"}},
		{"threshold", "    config: {similarity_threshold: 1.5}\n", []string{"similarity_threshold must be between 0 and 1"}},
		{"type filter", "    config: {memory_type_filter: forever}\n", []string{"memory_type_filter must be all, short_term or long_term"}},
		{"preset", "    memory_preset: eternal\n", []string{"wf.yaml:5:5:", `unknown memory_preset "eternal" (known: sensory, working, episodic, semantic, procedural, meta)`}},
		{"ttl zero", "    config: {operation: write}\n    ttl: 0\n", []string{"ttl must be more than 0"}},
		{"ttl text", "    config: {operation: write}\n    ttl: soon\n", []string{"wf.yaml:6:5:", "ttl"}},
		{"decay hours", "    decay: {short_term_hours: -1}\n", []string{"short_term_hours must be more than 0 hours"}},
		{"decay key", "    decay: {half_life: 3}\n", []string{`unknown key "half_life"`}},
		{"empty namespace", "    namespace: \"\"\n", []string{"namespace must not be empty"}},
		{"metadata mapping", "    config: {operation: write}\n    metadata: {a: {b: c}}\n", []string{"a must be text"}},
		{"key template syntax", "    config: {operation: write}\n    key_template: \"{{ x \"\n", []string{"key_template template"}},
		{"metadata list item syntax", "    config: {operation: write}\n    metadata: {tags: [ok, \"{% if %}\"]}\n", []string{`wf.yaml:6:28: agent "m": metadata: tags[1] template:`}},
		{"embedder without provider", "    embedder: {model: m}\n", []string{"provider is required"}},
		{"embedder anthropic", "    embedder: {provider: anthropic, model: m}\n", []string{"no embeddings API"}},
		{"embedder without model", "    embedder: {provider: ollama}\n", []string{"model is required for provider ollama"}},
		{"embedder bad url", "    embedder: {provider: ollama, model: m, model_url: \"ftp://x\"}\n", []string{"must start with http"}},
		{"embedder unknown key", "    embedder: {provider: ollama, model: m, dims: 3}\n", []string{`unknown key "dims"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, agentHead+tc.body)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestOrKaKeysLoadWithWarnings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"ignored reader keys", "    queue: orka:m\n    config: {enable_context_search: true, ef_runtime: 10, temporal_weight: 0.3}\n",
			[]string{"queue is accepted for OrKa compatibility and ignored", "enable_context_search is accepted", "ef_runtime is accepted", "temporal_weight is accepted"}},
		{"writer keys on a reader", "    key_template: k\n    metadata: {a: b}\n    ttl: 1h\n",
			[]string{"key_template does nothing with operation: read", "metadata does nothing", "ttl does nothing"}},
		{"reader keys on a writer", "    config: {operation: write, limit: 3, similarity_threshold: 0.8}\n",
			[]string{"limit does nothing with operation: write", "similarity_threshold does nothing"}},
		{"vector without embedder", "    vector: true\n    config: {vector: true}\n",
			[]string{"wf.yaml:5:5: agent \"m\": vector: true needs an embedder", "wf.yaml:6:14:"}},
		{"decay rules", "    decay: {enabled: true, importance_rules: {base_score: 0.3}, check_interval_minutes: 1}\n",
			[]string{"importance_rules is accepted", "check_interval_minutes is accepted"}},
		{"plain-text key", "    embedder: {provider: openai, api_key: sk-x}\n", []string{"secret in plain text"}},
		{"temporal hours without ranking", "    config: {temporal_decay_hours: 5}\n", []string{"temporal_decay_hours does nothing without enable_temporal_ranking"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := strings.Join(warnings(t, agentHead+tc.body), "\n")
			for _, w := range tc.want {
				assert.Contains(t, ws, w)
			}
		})
	}
}

// OrKa's own memory agents (examples/memory_decay_example.yml, trimmed of
// filters cogloop does not have) load and run unchanged.
func TestOrKaMemoryAgentsRunUnchanged(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`
orchestrator:
  id: memory-decay-demo
  strategy: sequential
  queue: orka:decay-demo
  agents: [memory-reader, memory-writer-long, memory-reader-again]
agents:
  - id: memory-reader
    type: memory
    queue: orka:memory-reader
    config:
      operation: read
      memory_category_filter: stored
      disable_memory_logging: true
    namespace: demo_knowledge
    prompt: "Search for any existing knowledge about: {{ input }}"
  - id: memory-writer-long
    type: memory
    queue: orka:memory-writer-long
    config:
      operation: write
      disable_memory_logging: true
    namespace: demo_knowledge
    decay:
      enabled: true
      default_long_term: true
      short_term_hours: 0.025
      long_term_hours: .1
      memory_type_rules:
        long_term_events: ["write", "result", "completion"]
      importance_rules:
        base_score: 0.8
    prompt: >
      Long-term knowledge about: {{ input }}
      Existing knowledge: {{ previous_outputs['memory-reader'].memories }}
    metadata:
      source: "long_term_writer"
      confidence: 0.9
      category: stored
    key_template: "long_{{ input }}"
  - id: memory-reader-again
    type: memory
    config: {operation: read, memory_category_filter: stored}
    namespace: demo_knowledge
    prompt: "Search for any existing knowledge about: {{ input }}"
`), "orka.yaml")
	require.NoError(t, err)
	assert.NotEmpty(t, wf.Warnings, "OrKa-only keys are reported")
	for _, w := range wf.Warnings {
		assert.Contains(t, w.Msg, "ignored")
	}
	e := newEnv(t, memories.Options{})
	res, err := wf.Run(context.Background(), "quantum tunnelling", cogloop.WithMemory(e.store))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	assert.Equal(t, 0, agenttest.Output(t, res.Outputs, "memory-reader").Fields["num_results"])
	w := agenttest.Output(t, res.Outputs, "memory-writer-long")
	assert.Equal(t, "long_quantum tunnelling", w.Fields["memory_id"])
	assert.Contains(t, w.Fields, "expires_at")
	again := memoriesOf(t, agenttest.Output(t, res.Outputs, "memory-reader-again"))
	require.Len(t, again, 1)
	assert.Equal(t, "long_quantum tunnelling", again[0]["id"])
}
