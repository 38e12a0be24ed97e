package cogloop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/memory"
)

// recordingStore is an in-memory store that keeps the JSON of everything
// written to it: history entries, checkpoints, memories.
type recordingStore struct {
	memory.Store
	mu      sync.Mutex
	written strings.Builder
}

func (s *recordingStore) note(v any) {
	b, _ := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written.Write(b)
	s.written.WriteByte('\n')
}

func (s *recordingStore) Written() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written.String()
}

func (s *recordingStore) Append(ctx context.Context, loopID string, e memory.Entry) error {
	s.note(e)
	return s.Store.Append(ctx, loopID, e)
}

func (s *recordingStore) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	s.note(cp)
	return s.Store.SaveCheckpoint(ctx, runID, cp)
}

func (s *recordingStore) Remember(ctx context.Context, namespace string, m memory.Memory) error {
	s.note(m)
	return s.Store.Remember(ctx, namespace, m)
}

// A model that echoes its API key in a successful reply: the key appears in
// no output, event, past_loops entry, history, memory or checkpoint; the
// reply says [REDACTED:OPENAI_API_KEY] instead.
func TestSecretEchoedInAReplyIsScrubbedEverywhere(t *testing.T) {
	canary := agenttest.CanaryKey(t, "OPENAI_API_KEY")

	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		text := fmt.Sprintf("INSIGHT: my key is %s and it works\nSCORE: 0.5", key)
		agenttest.WriteChatReply(w, text, 3, 9)
	}))
	t.Cleanup(srv.Close)

	src := strings.ReplaceAll(`orchestrator: {id: w, agents: [l, keep, final]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.99
    persist_across_runs: true
    cognitive_extraction:
      enabled: true
      extract_patterns: {insights: ["INSIGHT: (.+?)(?:\\n|$)"]}
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: gpt-test, model_url: URL, prompt: "improve {{ input }}"}
  - id: keep
    type: memory
    namespace: canary
    config: {operation: write}
    prompt: "{{ previous_outputs.l.response }}"
  - id: final
    type: openai-answer
    model: gpt-test
    model_url: URL
    prompt: "Final: {{ previous_outputs.l.response }}"
`, "URL", srv.URL)
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	inner, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	store := &recordingStore{Store: inner}
	t.Cleanup(func() { _ = store.Close() })
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "task", cogloop.WithMemory(store), cogloop.WithObserver(rec.Observe),
		cogloop.WithCheckpoints(), cogloop.WithRunID("canary-run"))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	assert.Equal(t, 3, calls, "two passes and the final agent called the model")

	loop, ok := res.Outputs.Get("l")
	require.True(t, ok)
	past, err := json.Marshal(loop.Map()["past_loops"])
	require.NoError(t, err)
	all := map[string]any{}
	for _, id := range res.Outputs.IDs() {
		o, _ := res.Outputs.Get(id)
		all[id] = o.Map()
	}
	outputs, err := json.Marshal(all)
	require.NoError(t, err)
	events, err := json.Marshal(rec.Events())
	require.NoError(t, err)
	for name, text := range map[string]string{
		"answer": res.Text(), "outputs": string(outputs), "past_loops": string(past),
		"events": string(events), "store": store.Written(),
	} {
		assert.NotContains(t, text, canary, name)
		assert.NotContains(t, text, canary[len("sk-canary-"):], name)
		assert.Contains(t, text, "[REDACTED:OPENAI_API_KEY]", "%s: the echo was there and was scrubbed", name)
	}
}

// Scripted replies (--script, and the scripted type) pass through the same
// gate: a key of any agent of the workflow is scrubbed from any agent's reply,
// and from rendered prompts in events.
func TestScriptedRepliesAreScrubbed(t *testing.T) {
	canary := "sk-canary-scripted-0123456789"
	t.Setenv("OPENAI_API_KEY", canary)
	src := `orchestrator: {id: w, agents: [s, a]}
agents:
  - {id: s, type: scripted, responses: ["echo ` + canary + `"]}
  - {id: a, type: openai-answer, model: gpt-test, prompt: "say {{ previous_outputs.s.response }} and {{ input }}"}
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse([]byte("a: [\"the key "+canary+" again\"]\n"), "script.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "input "+canary, cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	assert.Equal(t, "the key [REDACTED:OPENAI_API_KEY] again", res.Text())
	s, _ := res.Outputs.Get("s")
	assert.Equal(t, "echo [REDACTED:OPENAI_API_KEY]", s.Response)
	a, _ := res.Outputs.Get("a")
	assert.Equal(t, "say echo [REDACTED:OPENAI_API_KEY] and input [REDACTED:OPENAI_API_KEY]", a.Prompt,
		"the prompt as events show it")
	events, err := json.Marshal(rec.Events())
	require.NoError(t, err)
	assert.NotContains(t, string(events), canary)
}
