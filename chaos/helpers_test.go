package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/memory"
)

func TestMain(m *testing.M) {
	code := m.Run()
	clibin.Remove()
	os.Exit(code)
}

// chaosWorkflow is a persisted, budgeted loop of two model calls a pass.
const chaosWorkflow = `orchestrator: {id: chaos, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.99
    persist_across_runs: true
    budget: {max_tokens: %d}
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, scorer]}
      agents:
        - {id: writer, type: openai-answer, model: m, max_tokens: 20, prompt: "pass {{ loop_number }}"}
        - {id: scorer, type: openai-answer, model: m, max_tokens: 20, prompt: "score {{ loop_number }}"}
`

// chaosScript answers every call with 25 tokens (within the worst case a
// call reserves); the scorer's scores climb with each call of the process.
func chaosScript(delay string) string {
	reply := func(text string) string {
		return fmt.Sprintf("{text: %q, delay: %s, usage: {prompt_tokens: 5, completion_tokens: 20}}", text, delay)
	}
	var scores []string
	for i := 1; i <= 9; i++ {
		scores = append(scores, reply(fmt.Sprintf("SCORE: 0.%d", i)))
	}
	return fmt.Sprintf("writer: {cycle: [%s]}\nscorer: {cycle: [%s]}\n", reply("a draft"), strings.Join(scores, ", "))
}

func parseScript(t *testing.T, delay string) *scripted.Script {
	t.Helper()
	s, err := scripted.Parse([]byte(chaosScript(delay)), "chaos-replies.yaml")
	require.NoError(t, err)
	return s
}

// checkHistory asserts the invariants of a finished run's history: the
// entries of runID are passes 1..n with no gap and no duplicate, and equal
// (loop number and score) to the past_loops the run reported.
func checkHistory(t *testing.T, store memory.History, runID string, reported []any) {
	t.Helper()
	checkHistoryBeyond(t, store, runID, reported, 0)
}

// checkHistoryBeyond is checkHistory allowing up to beyond more stored
// entries after the reported ones (see TestKillNineInPass3).
func checkHistoryBeyond(t *testing.T, store memory.History, runID string, reported []any, beyond int) {
	t.Helper()
	hist, err := store.History(context.Background(), memory.HistoryID("chaos", "l"), 0)
	require.NoError(t, err)
	var mine []memory.Entry
	for _, e := range hist {
		if e.RunID == runID {
			mine = append(mine, e)
		}
	}
	require.GreaterOrEqual(t, len(mine), len(reported), "one history entry per reported pass")
	require.LessOrEqual(t, len(mine), len(reported)+beyond, "one history entry per reported pass")
	for i, e := range mine[:len(reported)] {
		assert.Equal(t, i+1, e.Iteration, "no gap and no duplicate")
		var got map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &got))
		want := reported[i].(map[string]any)
		assert.EqualValues(t, want["loop_number"], got["loop_number"], "entry %d", i+1)
		require.IsType(t, float64(0), got["score"], "entry %d: a stored score", i+1)
		wantScore, _ := pyvalue.Number(want["score"])
		assert.InDelta(t, wantScore, got["score"], 1e-12, "entry %d: the stored score is the reported one", i+1)
	}
}

// goroutinesBack waits (bounded) for the goroutine count to return to base,
// and fails with every stack when it does not.
func goroutinesBack(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a bound, not a guess at the machine's speed
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines, %d before the scenario:\n%s", runtime.NumGoroutine(), base, buf[:n])
		}
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}
