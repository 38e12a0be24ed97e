package loopnode_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/memory"
)

// resumeLoop uses everything a checkpoint must carry: feedback append (the
// input grows), output mappings, return: best, stable_output, stagnation,
// loop variables (Loom's and vars:/update:) and persisted history.
const resumeLoop = `orchestrator: {id: resume, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 6
    feedback: append
    return: best
    persist_across_runs: true
    stop_when:
      any:
        - {stable_output: {of: w, threshold: 0.999}}
        - {stagnation: {repeats: 3}}
        - {score: {threshold: 0.99}}
    vars: {seen: 0, trail: []}
    update: {seen: "{{ seen + 1 }}", trail: "{{ trail + [loop_number] }}"}
    output_mappings:
      - {target: all, source: {node: w}, take: all}
      - {target: best, source: {node: w}, take: best}
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "{{ seen }}/{{ trail | length }} {{ get_input() }} | {{ loop_result }} | {{ get_past_loops() | length }}"}
`

// promptModels answers from a hash of the prompt (the same from pass 4 on), so an interrupted and
// resumed run gets the same replies as an uninterrupted one exactly when it
// renders the same prompts.
type promptModels struct {
	mu    sync.Mutex
	calls int
}

func (m *promptModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		if err := ctx.Err(); err != nil {
			return agents.Reply{}, err
		}
		m.mu.Lock()
		m.calls++
		m.mu.Unlock()
		h := sha256.Sum256([]byte(req.Prompt))
		if strings.HasSuffix(req.Prompt, "| 3") || strings.HasSuffix(req.Prompt, "| 4") {
			// Passes 4 and 5 answer alike: stable_output stops the loop after 5.
			return agents.Reply{Text: "steady SCORE: 0.5"}, nil
		}
		return agents.Reply{Text: fmt.Sprintf("answer %x SCORE: 0.%02d", h[:3], int(h[3])%90),
			Usage: spend.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
	}), nil
}

// comparable drops what differs between runs by nature (durations, times).
func comparableOutput(t *testing.T, o agents.Output) map[string]any {
	t.Helper()
	b, err := json.Marshal(o.Fields)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, it := range m["iterations"].([]any) {
		delete(it.(map[string]any), "duration_ms")
	}
	for _, p := range m["past_loops"].([]any) {
		delete(p.(map[string]any), "timestamp")
	}
	delete(m, "input")
	m["response"] = o.Response
	return m
}

// A run canceled at any pass and resumed ends exactly as the run that was
// never interrupted: same output, history and model calls for the completed
// passes made once.
func TestResumeEqualsUninterrupted(t *testing.T) {
	wf, err := cogloop.Parse([]byte(resumeLoop), "resume.yaml")
	require.NoError(t, err)
	run := func(ctx context.Context, store memory.Store, models *promptModels, opts ...cogloop.RunOption) (*cogloop.Result, error) {
		return wf.Run(ctx, "task", append(opts, cogloop.WithMemory(store), cogloop.WithModels(models))...)
	}
	plainStore, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	plainModels := &promptModels{}
	plain, err := run(context.Background(), plainStore, plainModels, cogloop.WithRunID("r"), cogloop.WithCheckpoints())
	require.NoError(t, err)
	want, _ := plain.Outputs.Get("l")
	passes := want.Fields["loops_completed"].(int)
	require.Greater(t, passes, 2, "the workflow must run several passes to test anything")
	require.Equal(t, "stable_output", want.Fields["stop_reason"])
	require.Equal(t, passes, want.Fields["vars"].(map[string]any)["seen"], "the variables count the passes")

	for k := 1; k <= passes; k++ {
		t.Run(fmt.Sprintf("cancel_in_pass_%d", k), func(t *testing.T) {
			store, err := memory.NewInMemory(memory.Options{})
			require.NoError(t, err)
			models := &promptModels{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			at := fmt.Sprintf("l › iteration %d › w", k)
			_, err = run(ctx, store, models, cogloop.WithRunID("r"), cogloop.WithCheckpoints(),
				cogloop.WithObserver(func(e event.Event) {
					if e.Kind == event.AgentStart && e.Node == at {
						cancel()
					}
				}))
			require.ErrorIs(t, err, context.Canceled)
			res, err := run(context.Background(), store, models, cogloop.WithResume("r", false))
			require.NoError(t, err)
			got, _ := res.Outputs.Get("l")
			assert.Equal(t, comparableOutput(t, want), comparableOutput(t, got))
			assert.Equal(t, plainModels.calls, models.calls, "no completed pass calls the model again (cancel in pass %d)", k)

			hist, err := store.History(context.Background(), memory.HistoryID("resume", "l"), 0)
			require.NoError(t, err)
			wantHist, err := plainStore.History(context.Background(), memory.HistoryID("resume", "l"), 0)
			require.NoError(t, err)
			require.Len(t, hist, len(wantHist))
			for i := range hist {
				assert.Equal(t, i+1, hist[i].Iteration)
				var a, b map[string]any
				require.NoError(t, json.Unmarshal(hist[i].Data, &a))
				require.NoError(t, json.Unmarshal(wantHist[i].Data, &b))
				delete(a, "timestamp")
				delete(b, "timestamp")
				assert.Equal(t, b, a)
			}
		})
	}
}

// history_ttl expires a loop's persisted history after no append for that
// long; without it the history never expires.
func TestHistoryTTL(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store, err := memory.NewInMemory(memory.Options{Now: func() time.Time { return now }})
	require.NoError(t, err)
	for _, tc := range []struct{ loop, ttl string }{{"expiring", "    history_ttl: 1h\n"}, {"lasting", ""}} {
		src := strings.Replace(strings.ReplaceAll(persistLoop, "LOOP", tc.loop), "    persist_across_runs: true\n", "    persist_across_runs: true\n"+tc.ttl, 1)
		wf, err := cogloop.Parse([]byte(src), "ttl.yaml")
		require.NoError(t, err)
		_, err = wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithModels(&promptModels{}))
		require.NoError(t, err)
	}
	now = now.Add(time.Hour)
	for loop, left := range map[string]int{"expiring": 0, "lasting": 2} {
		hist, err := store.History(context.Background(), memory.HistoryID("p", loop), 0)
		require.NoError(t, err)
		assert.Len(t, hist, left, loop)
	}

	src := strings.ReplaceAll(persistLoop, "LOOP", "l")
	wf, err := cogloop.Parse([]byte(strings.Replace(src, "    persist_across_runs: true\n", "    history_ttl: 1h\n", 1)), "ttl.yaml")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Contains(t, wf.Warnings[0].Error(), "history_ttl has no effect without persist_across_runs")
}

const persistLoop = `orchestrator: {id: p, agents: [LOOP]}
agents:
  - id: LOOP
    type: loop
    max_loops: 2
    score_threshold: 0.99
    persist_across_runs: true
    internal_workflow:
      orchestrator: {id: inner, agents: [w]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "pass {{ loop_number }}"}
`

// The delay between passes is a schedule that survives a resume: a run that
// died while waiting goes on with what was left of the wait, so a resume long
// after the last pass does not wait the whole delay again.
func TestResumeKeepsDelaySchedule(t *testing.T) {
	src := strings.Replace(strings.ReplaceAll(persistLoop, "LOOP", "l"), "    persist_across_runs: true\n", "    delay: 1h\n", 1)
	wf, err := cogloop.Parse([]byte(src), "delay.yaml")
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = wf.Run(ctx, "x", cogloop.WithRunID("d"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(&promptModels{}), cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.LoopIteration {
				cancel() // the run dies in the hour-long wait after pass 1
			}
		}))
	require.ErrorIs(t, err, context.Canceled)

	// Two hours pass: the checkpoint's pass ended that long ago.
	cp, ok, err := store.LoadCheckpoint(context.Background(), "d")
	require.NoError(t, err)
	require.True(t, ok)
	var head map[string]any
	require.NoError(t, json.Unmarshal(cp.State["loop:l"], &head))
	head["ended"] = time.Now().Add(-2 * time.Hour)
	cp.State = map[string][]byte{}
	cp.State["loop:l"], err = json.Marshal(head)
	require.NoError(t, err)
	require.NoError(t, store.SaveCheckpoint(context.Background(), "d", cp))

	// The resumed run runs pass 2 at once (its deadline is far below an hour).
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := wf.Run(ctx, "x", cogloop.WithResume("d", false), cogloop.WithMemory(store), cogloop.WithModels(&promptModels{}))
	require.NoError(t, err)
	loop, _ := res.Outputs.Get("l")
	assert.Equal(t, 2, loop.Fields["loops_completed"])
	assert.Equal(t, "max_loops", loop.Fields["stop_reason"])
}
