package memories_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/memories"
)

const roundTrip = `
orchestrator:
  id: round-trip
  strategy: sequential
  agents: [remember, recall, answer]
agents:
  - id: remember
    type: memory
    namespace: %[1]s
    config:
      operation: write
    prompt: "The capital of {{ get_input() }} is Paris."
    metadata:
      source: user
  - id: recall
    type: memory
    namespace: %[1]s
    prompt: "What is the capital of {{ get_input() }}?"
  - id: answer
    type: scripted
    responses: [Paris]
    prompt: "Known: {{ get_agent_response('recall') }} | first: {{ previous_outputs.recall.memories[0].content }} | n={{ previous_outputs.recall.num_results }}"
`

func TestWriteThenReadInOneRun(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, fmt.Sprintf(roundTrip, "facts"))
	res := e.run(t, wf, "France")

	w := agenttest.Output(t, res.Outputs, "remember")
	id, _ := w.Fields["memory_id"].(string)
	assert.Len(t, id, 32, "an id derived from content and metadata")
	assert.Equal(t, "stored "+id, w.Response)
	assert.Equal(t, "success", w.Fields["status"])
	assert.Equal(t, "facts", w.Fields["namespace"])
	assert.Equal(t, id, w.Fields["memory_key"])
	assert.Equal(t, "The capital of France is Paris.", w.Prompt)
	assert.NotContains(t, w.Fields, "expires_at", "no ttl, no decay")

	r := agenttest.Output(t, res.Outputs, "recall")
	assert.Equal(t, "The capital of France is Paris.", r.Response)
	assert.Equal(t, "What is the capital of France?", r.Fields["query"])
	assert.Equal(t, 1, r.Fields["num_results"])
	assert.Equal(t, "memory store", r.Fields["backend"])
	assert.Equal(t, "keyword", r.Fields["search_type"])
	ms := memoriesOf(t, r)
	require.Len(t, ms, 1)
	assert.Equal(t, id, ms[0]["id"])
	assert.Equal(t, 1.0, ms[0]["similarity"], "capital and france are both in the memory")
	assert.Equal(t, 1.0, ms[0]["score"])
	assert.Equal(t, map[string]any{"source": "user", "category": "stored", "memory_type": "short_term"}, ms[0]["metadata"])
	assert.Equal(t, e.clock.Now().Format(time.RFC3339Nano), ms[0]["created_at"], "stamped by the shared clock")

	a := agenttest.Output(t, res.Outputs, "answer")
	// OrKa's get_agent_response of a memory reader is str() of its result
	// mapping (it has neither result nor response), in its key order
	// (memory_reader_node.py).
	assert.True(t, strings.HasPrefix(a.Prompt, "Known: {'memories': [{'content': 'The capital of France is Paris.', "), a.Prompt)
	assert.True(t, strings.HasSuffix(a.Prompt, "'query': 'What is the capital of France?', 'backend': 'memory store', 'search_type': 'keyword', 'num_results': 1} | first: The capital of France is Paris. | n=1"), a.Prompt)
}

// Two workflows share memories through a store given to both (DefaultMemory,
// or Redis); each workflow's own default store is its alone.
func TestTwoWorkflowsShareAGivenStore(t *testing.T) {
	ns := uniqueNS(t)
	writer, err := cogloop.Parse([]byte(fmt.Sprintf(`
orchestrator: {id: w, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: %s
    config: {operation: write}
`, ns)), "writer.yaml")
	require.NoError(t, err)
	require.Empty(t, writer.Warnings)
	reader, err := cogloop.Parse([]byte(fmt.Sprintf(`
orchestrator: {id: r, agents: [recall]}
agents:
  - id: recall
    type: memory
    namespace: %s
`, ns)), "reader.yaml")
	require.NoError(t, err)
	require.Empty(t, reader.Warnings)

	shared, err := cogloop.DefaultMemory()
	require.NoError(t, err)
	res, err := reader.Run(context.Background(), "penguins", cogloop.WithMemory(shared))
	require.NoError(t, err)
	assert.Equal(t, 0, agenttest.Output(t, res.Outputs, "recall").Fields["num_results"], "nothing written yet")

	res, err = writer.Run(context.Background(), "Penguins cannot fly but swim well", cogloop.WithMemory(shared))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	_, err = writer.Run(context.Background(), "Penguins cannot fly but swim well")
	require.NoError(t, err)

	res, err = reader.Run(context.Background(), "Can penguins swim?")
	require.NoError(t, err)
	assert.Equal(t, 0, agenttest.Output(t, res.Outputs, "recall").Fields["num_results"],
		"without WithMemory each workflow has its own store: the writer's own default store is not the reader's")

	res, err = reader.Run(context.Background(), "Can penguins swim?", cogloop.WithMemory(shared))
	require.NoError(t, err)
	require.Empty(t, res.Failed())
	r := agenttest.Output(t, res.Outputs, "recall")
	assert.Equal(t, "Penguins cannot fly but swim well", r.Response, "a later run reads what an earlier one wrote")
	assert.Equal(t, "Can penguins swim?", r.Fields["query"], "without a prompt the query is the input")
}

func readerYAML(ns, config string) string {
	return fmt.Sprintf(`
orchestrator: {id: r, agents: [recall]}
agents:
  - id: recall
    type: memory
    namespace: %s
    prompt: "{{ get_input() }}"
    config: {%s}
`, ns, config)
}

func TestLimitKeepsTheMostRecentOfEquallyRelevant(t *testing.T) {
	e := newEnv(t, memories.Options{})
	for i := 1; i <= 5; i++ {
		e.remember(t, "n", memory.Memory{Content: fmt.Sprintf("go fact %d", i)})
		e.clock.Advance(time.Minute)
	}
	e.remember(t, "n", memory.Memory{Content: "unrelated note"})
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"limit 2", "limit: 2", []string{"go fact 5", "go fact 4"}},
		{"limit 4", "limit: 4", []string{"go fact 5", "go fact 4", "go fact 3", "go fact 2"}},
		{"default limit", "", []string{"go fact 5", "go fact 4", "go fact 3", "go fact 2", "go fact 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(t, e.load(t, readerYAML("n", tc.config)), "go facts")
			r := agenttest.Output(t, res.Outputs, "recall")
			assert.Equal(t, tc.want, contents(memoriesOf(t, r)))
			assert.Equal(t, strings.Join(tc.want, "\n"), r.Response, "the response is the contents, best first, one per line")
			assert.Equal(t, len(tc.want), r.Fields["num_results"])
		})
	}
}

func TestSimilarityThreshold(t *testing.T) {
	e := newEnv(t, memories.Options{})
	e.remember(t, "n", memory.Memory{Content: "Red apples and green pears"}) // red, apple, pear: 3/3
	e.clock.Advance(time.Minute)
	e.remember(t, "n", memory.Memory{Content: "Red cars are fast"}) // red: 1/3
	e.clock.Advance(time.Minute)
	e.remember(t, "n", memory.Memory{Content: "The sky is blue"}) // 0/3
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"default keyword threshold 0.2", "", []string{"Red apples and green pears", "Red cars are fast"}},
		{"0.5", "similarity_threshold: 0.5", []string{"Red apples and green pears"}},
		{"1", "similarity_threshold: 1", []string{"Red apples and green pears"}},
		{"0 lists everything", "similarity_threshold: 0", []string{"Red apples and green pears", "Red cars are fast", "The sky is blue"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.run(t, e.load(t, readerYAML("n", tc.config)), "red apples, pears")
			ms := memoriesOf(t, agenttest.Output(t, res.Outputs, "recall"))
			assert.Equal(t, tc.want, contents(ms))
			if len(ms) > 1 {
				assert.InDelta(t, 1.0/3, ms[1]["similarity"], 1e-9)
			}
		})
	}
}

func TestNothingFoundFallsBackInTemplates(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: r, agents: [recall, answer]}
agents:
  - id: recall
    type: memory
    namespace: empty
  - id: answer
    type: scripted
    responses: [ok]
    prompt: "[{{ get_agent_response('recall') }}] {{ safe_get_response('recall', 'nothing remembered') }}"
`)
	res := e.run(t, wf, "anything at all")
	assert.Equal(t, "", agenttest.Output(t, res.Outputs, "recall").Response)
	// OrKa: get_agent_response gives str() of the reader's mapping,
	// safe_get_response its fallback (the mapping has no result or response).
	assert.Equal(t, "[{'memories': [], 'query': 'anything at all', 'backend': 'memory store', 'search_type': 'keyword', 'num_results': 0}] nothing remembered",
		agenttest.Output(t, res.Outputs, "answer").Prompt)
}

func TestEmptyQueryRecallsNothing(t *testing.T) {
	e := newEnv(t, memories.Options{})
	e.remember(t, "n", memory.Memory{Content: "something"})
	res := e.run(t, e.load(t, readerYAML("n", "similarity_threshold: 0")), "   ")
	r := agenttest.Output(t, res.Outputs, "recall")
	assert.Equal(t, "No query provided", r.Fields["error"])
	assert.Empty(t, memoriesOf(t, r))
}

func TestMetadataTemplates(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: m, agents: [classify, remember, recall]}
agents:
  - id: classify
    type: scripted
    responses: [science]
  - id: remember
    type: memory
    namespace: n
    config: {operation: write}
    prompt: "Water boils at 100 degrees at sea level"
    metadata:
      source: "{{ previous_outputs.classify.response }}"
      topic: "{{ get_input() | upper }}"
      confidence: 0.7
      tags: [physics, "{{ get_input() }}"]
      category: notes
  - id: recall
    type: memory
    namespace: n
    prompt: "water boils"
`)
	res := e.run(t, wf, "boiling")
	want := map[string]any{"source": "science", "topic": "BOILING", "confidence": "0.7",
		"tags": "physics, boiling", "category": "notes", "memory_type": "short_term"}
	assert.Equal(t, want, agenttest.Output(t, res.Outputs, "remember").Fields["stored_metadata"])
	ms := memoriesOf(t, agenttest.Output(t, res.Outputs, "recall"))
	require.Len(t, ms, 1)
	assert.Equal(t, want, ms[0]["metadata"])
}

func TestKeyTemplateReplacesAndContentDedups(t *testing.T) {
	e := newEnv(t, memories.Options{})
	keyed := e.load(t, `
orchestrator: {id: k, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: keyed
    config: {operation: write}
    key_template: "topic-{{ input.topic }}"
    prompt: "{{ input.text }}"
`)
	unkeyed := e.load(t, `
orchestrator: {id: u, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: unkeyed
    config: {operation: write}
    prompt: "{{ input.text }}"
`)
	all := func(ns string) []memory.Match {
		ms, err := e.store.Recall(context.Background(), ns, memory.Query{Limit: 100})
		require.NoError(t, err)
		return ms
	}

	res := e.run(t, keyed, map[string]any{"topic": "go", "text": "Go has goroutines"})
	assert.Equal(t, "topic-go", agenttest.Output(t, res.Outputs, "remember").Fields["memory_id"])
	e.clock.Advance(time.Second)
	e.run(t, keyed, map[string]any{"topic": "go", "text": "Go has channels"})
	e.run(t, keyed, map[string]any{"topic": "rust", "text": "Rust has lifetimes"})
	got := all("keyed")
	require.Len(t, got, 2, "the same key names the same memory")
	byID := map[string]string{}
	for _, m := range got {
		byID[m.Memory.ID] = m.Memory.Content
	}
	assert.Equal(t, map[string]string{"topic-go": "Go has channels", "topic-rust": "Rust has lifetimes"}, byID)

	first := agenttest.Output(t, e.run(t, unkeyed, map[string]any{"text": "same fact"}).Outputs, "remember").Fields["memory_id"]
	second := agenttest.Output(t, e.run(t, unkeyed, map[string]any{"text": "same fact"}).Outputs, "remember").Fields["memory_id"]
	e.run(t, unkeyed, map[string]any{"text": "another fact"})
	assert.Equal(t, first, second, "the same content and metadata give the same id")
	assert.Len(t, all("unkeyed"), 2)

	long := strings.Repeat("x", memories.MaxKeyLen+1)
	res = e.run(t, keyed, map[string]any{"topic": long, "text": "long key"})
	id := agenttest.Output(t, res.Outputs, "remember").Fields["memory_id"].(string)
	assert.True(t, strings.HasPrefix(id, "sha256-"), id)
	res = e.run(t, keyed, map[string]any{"topic": long, "text": "long key, again"})
	assert.Equal(t, id, agenttest.Output(t, res.Outputs, "remember").Fields["memory_id"], "a long key still names one memory")
}

func TestTTLExpiry(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: t, agents: [remember, recall]}
agents:
  - id: remember
    type: memory
    namespace: n
    config: {operation: write}
    ttl: 1h
    prompt: "{{ input.write }}"
  - id: recall
    type: memory
    namespace: n
    prompt: "{{ input.read }}"
`)
	start := e.clock.Now()
	res := e.run(t, wf, map[string]any{"write": "the deploy key rotates weekly", "read": "deploy key"})
	assert.Equal(t, start.Add(time.Hour).Format(time.RFC3339Nano), agenttest.Output(t, res.Outputs, "remember").Fields["expires_at"])
	ms := memoriesOf(t, agenttest.Output(t, res.Outputs, "recall"))
	require.Len(t, ms, 1)
	assert.Equal(t, start.Add(time.Hour).Format(time.RFC3339Nano), ms[0]["expires_at"])

	reader := e.load(t, readerYAML("n", ""))
	e.clock.Advance(59 * time.Minute)
	assert.Len(t, memoriesOf(t, agenttest.Output(t, e.run(t, reader, "deploy key").Outputs, "recall")), 1, "alive before its ttl")
	e.clock.Advance(time.Minute)
	assert.Empty(t, memoriesOf(t, agenttest.Output(t, e.run(t, reader, "deploy key").Outputs, "recall")), "gone at its ttl")
}

func TestDecayLifetimes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		agentKeys  string
		short, lng time.Duration // 0: never expires
	}{
		{"decay block", "decay: {enabled: true, short_term_hours: 0.5, default_long_term_hours: 2}", 30 * time.Minute, 2 * time.Hour},
		{"decay defaults", "decay: {enabled: true}", time.Hour, 24 * time.Hour},
		{"decay without enabled is on", "decay: {default_short_term_hours: 3}", 3 * time.Hour, 24 * time.Hour},
		{"decay disabled", "decay: {enabled: false, short_term_hours: 1}", 0, 0},
		{"preset", "memory_preset: sensory", 15 * time.Minute, time.Hour},
		{"preset with override", "memory_preset: working\n    decay: {long_term_hours: 10}", 2 * time.Hour, 10 * time.Hour},
		{"preset switched off", "memory_preset: working\n    decay: {enabled: false}", 0, 0},
		{"ttl wins over decay", "ttl: 5m\n    decay: {enabled: true}", 5 * time.Minute, 5 * time.Minute},
		{"default_long_term", "decay: {enabled: true, default_long_term: true, long_term_hours: 7}", 7 * time.Hour, 7 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, memories.Options{})
			wf := e.load(t, fmt.Sprintf(`
orchestrator: {id: d, agents: [short, long]}
agents:
  - id: short
    type: memory
    namespace: n
    config: {operation: write}
    prompt: "a passing remark"
    %[1]s
  - id: long
    type: memory
    namespace: n
    config: {operation: write}
    prompt: "a stored fact"
    metadata: {category: stored}
    %[1]s
`, tc.agentKeys))
			now := e.clock.Now()
			res := e.run(t, wf, "x")
			for id, life := range map[string]time.Duration{"short": tc.short, "long": tc.lng} {
				f := agenttest.Output(t, res.Outputs, id).Fields
				if life == 0 {
					assert.NotContains(t, f, "expires_at", id)
					continue
				}
				assert.Equal(t, now.Add(life).Format(time.RFC3339Nano), f["expires_at"], id)
			}
			assert.Equal(t, "long_term", agenttest.Output(t, res.Outputs, "long").Fields["stored_metadata"].(map[string]any)["memory_type"])
		})
	}
}

func TestTemporalRanking(t *testing.T) {
	e := newEnv(t, memories.Options{})
	e.remember(t, "n", memory.Memory{Content: "alpha beta"}) // similarity 1 with "alpha beta"
	e.clock.Advance(48 * time.Hour)
	e.remember(t, "n", memory.Memory{Content: "alpha gamma"}) // similarity 0.5
	for _, tc := range []struct {
		name, config, extra string
		want                []string
	}{
		{"off: relevance first", "", "", []string{"alpha beta", "alpha gamma"}},
		{"24h half-life: recent first", "enable_temporal_ranking: true", "", []string{"alpha gamma", "alpha beta"}},
		{"temporal_decay_hours", "enable_temporal_ranking: true, temporal_decay_hours: 200", "", []string{"alpha beta", "alpha gamma"}},
		{"decay long-term hours", "enable_temporal_ranking: true", "decay: {long_term_hours: 200}", []string{"alpha beta", "alpha gamma"}},
		{"preset", "enable_temporal_ranking: true", "memory_preset: sensory", []string{"alpha gamma", "alpha beta"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wf := e.load(t, fmt.Sprintf(`
orchestrator: {id: r, agents: [recall]}
agents:
  - id: recall
    type: memory
    namespace: n
    prompt: "alpha beta"
    config: {%s}
    %s
`, tc.config, tc.extra))
			ms := memoriesOf(t, agenttest.Output(t, e.run(t, wf, "x").Outputs, "recall"))
			assert.Equal(t, tc.want, contents(ms))
			for _, m := range ms {
				if tc.config == "" {
					assert.Equal(t, m["similarity"], m["score"])
				} else {
					assert.Less(t, m["score"].(float64), m["similarity"].(float64)+1e-12)
				}
			}
		})
	}
}

func TestCategoryAndTypeFilters(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: w, agents: [plain, stored, note]}
agents:
  - {id: plain, type: memory, namespace: n, config: {operation: write}, prompt: "topic one plain"}
  - {id: stored, type: memory, namespace: n, config: {operation: write}, prompt: "topic two stored", metadata: {category: stored}}
  - {id: note, type: memory, namespace: n, config: {operation: write}, prompt: "topic three note", metadata: {category: note}}
`)
	e.run(t, wf, "x")
	for _, tc := range []struct {
		config string
		want   []string
	}{
		{"memory_category_filter: stored", []string{"topic one plain", "topic two stored"}},
		{"memory_category_filter: note", []string{"topic three note"}},
		{"memory_type_filter: long_term", []string{"topic two stored"}},
		{"memory_type_filter: short_term", []string{"topic one plain", "topic three note"}},
		{"memory_type_filter: all", []string{"topic one plain", "topic three note", "topic two stored"}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			ms := memoriesOf(t, agenttest.Output(t, e.run(t, e.load(t, readerYAML("n", tc.config)), "topic").Outputs, "recall"))
			assert.ElementsMatch(t, tc.want, contents(ms))
		})
	}
}

func TestInsideALoop(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: l, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 2
    score_threshold: 0.9
    score_extraction_pattern: "SCORE: ([0-9.]+)"
    internal_workflow:
      orchestrator: {id: inner, agents: [task, note, recall, scorer]}
      agents:
        - {id: task, type: memory, namespace: loop, config: {operation: write}}
        - id: note
          type: memory
          namespace: loop
          config: {operation: write}
          prompt: "iteration {{ loop_number }} on {{ get_input() }}"
        - {id: recall, type: memory, namespace: loop, prompt: "iteration on {{ get_input() }}"}
        - id: scorer
          type: scripted
          responses: ["SCORE: 0.1", "SCORE: 0.2"]
          prompt: "{{ previous_outputs.recall.num_results }}"
`)
	e.run(t, wf, "rivers")
	ms, err := e.store.Recall(context.Background(), "loop", memory.Query{Limit: 10})
	require.NoError(t, err)
	got := map[string]bool{}
	for _, m := range ms {
		got[m.Memory.Content] = true
	}
	assert.Equal(t, map[string]bool{"rivers": true, "iteration 1 on rivers": true, "iteration 2 on rivers": true}, got,
		"without a prompt a writer stores the task text, once for both iterations")
}

func TestWriterBindsTimestampSessionAndNow(t *testing.T) {
	e := newEnv(t, memories.Options{})
	wf := e.load(t, `
orchestrator: {id: m, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: n
    config: {operation: write}
    prompt: "noted at {{ timestamp }}"
    key_template: "note_{{ session_id }}"
    metadata:
      at: "{{ now() }}"
`)
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(e.store), cogloop.WithRunID("run-7"))
	require.NoError(t, err)
	w := agenttest.Output(t, res.Outputs, "remember")
	stamp := e.clock.Now().UTC().Format(time.RFC3339Nano)
	assert.Equal(t, "noted at "+stamp, w.Prompt, "timestamp is the moment the writer stores")
	assert.Equal(t, stamp, w.Fields["stored_metadata"].(map[string]any)["at"], "now() returns the same moment")
	plain := e.load(t, `
orchestrator: {id: m, agents: [remember]}
agents:
  - id: remember
    type: memory
    namespace: n
    config: {operation: write}
    prompt: "noted"
    key_template: "note_{{ session_id }}"
`)
	again, err := plain.Run(context.Background(), "x", cogloop.WithMemory(e.store), cogloop.WithRunID("run-7"))
	require.NoError(t, err)
	assert.Equal(t, w.Fields["memory_id"], agenttest.Output(t, again.Outputs, "remember").Fields["memory_id"],
		"the key comes from session_id, the run id, so the same run writes the same key")
}
