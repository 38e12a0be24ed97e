package loopnode_test

import (
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loopResult runs the transcript testdata/dir, which must succeed, and
// returns the run and the output of its loop id.
func loopResult(t *testing.T, dir, id string) (*cogloop.Result, map[string]any) {
	t.Helper()
	res, err := transcript(t, dir)
	require.NoError(t, err)
	return res, loopOut(t, res.Outputs, id)
}

func loopOut(t *testing.T, outs *agents.Outputs, id string) map[string]any {
	t.Helper()
	o := agenttest.Output(t, outs, id)
	require.False(t, o.Failed(), o.Err)
	return o.Record()
}

// loopCase is a golden transcript (testdata/<dir>, -update rewrites it) whose
// run succeeds, and what its loop's output must hold.
type loopCase struct {
	dir, loop string
	fields    map[string]any // fields of the loop's output
	text      string         // the run's final text, when not empty
}

// Loops whose outcome is a few fields of the loop's output; the cases with
// more to check have their own tests.
func TestLoopOutcomes(t *testing.T) {
	for _, tc := range []loopCase{
		{dir: "boundary", loop: "loop", fields: map[string]any{"loops_completed": 2, "final_score": 0.7, "stop_reason": "threshold"}},
		{dir: "evaluator", loop: "l", fields: map[string]any{"stop_reason": "evaluator_done", "count": 2, "response": "polished draft"}},
		// Pass 2 differs too much from pass 1; pass 3 is within 0.9 of pass 2.
		{dir: "stable", loop: "l", fields: map[string]any{"stop_reason": "stable_output", "loops_completed": 3}},
		{dir: "until", loop: "l", fields: map[string]any{"stop_reason": "condition", "loops_completed": 2}},
		// Scores 0.4, 0.9, 0.7 from the review's JSON; return: best.
		{dir: "continue_while", loop: "l", fields: map[string]any{
			"stop_reason": "condition", "loops_completed": 3, "best_iteration": 2, "response": "parser v2",
			"outputs": map[string]any{
				"approved":   true,
				"drafts":     []any{"parser v1", "parser v2", "parser v3"},
				"best_draft": "parser v2",
				"iterations": 3,
			},
		}},
		{dir: "before", loop: "l", fields: map[string]any{"loops_completed": 0, "stop_reason": "condition"}, text: "ok"},
		// Answers 2, 3 and 4 are the same once whitespace and case are folded.
		{dir: "stagnation", loop: "l", fields: map[string]any{"stop_reason": "stagnation", "loops_completed": 4}},
		// Best 0.612 - 0.6 over 2 rounds < 0.05.
		{dir: "improvement", loop: "l", fields: map[string]any{"stop_reason": "stagnation", "loops_completed": 4}},
		{dir: "workflow_ref", loop: "l", fields: map[string]any{"loops_completed": 2, "stop_reason": "threshold", "response": "draft two"}},
		// One pass per queue item, none more; declared outputs read the variables.
		{dir: "vars_queue", loop: "l", text: "ok", fields: map[string]any{
			"loops_completed": 3, "stop_reason": "condition",
			"vars":    map[string]any{"queue": []any{}, "done": []any{"A", "B", "G"}, "handled": 3},
			"outputs": map[string]any{"done": []any{"A", "B", "G"}, "handled": 3, "progress": []any{1, 2, 3}},
		}},
		// The empty rest stops the loop before a fourth pass.
		{dir: "before_feedback", loop: "l", fields: map[string]any{"loops_completed": 3, "stop_reason": "condition"}},
		{dir: "declared_inputs", loop: "l", fields: map[string]any{"outputs": map[string]any{"rounds": 2}}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			res, out := loopResult(t, tc.dir, tc.loop)
			for k, want := range tc.fields {
				assert.Equal(t, want, out[k], k)
			}
			if tc.text != "" {
				assert.Equal(t, tc.text, res.Text())
			}
		})
	}
}

func TestThresholdMetOnIteration2(t *testing.T) {
	res, out := loopResult(t, "threshold", "improve_loop")
	assert.Equal(t, 2, out["loops_completed"])
	assert.Equal(t, 0.86, out["final_score"])
	assert.Equal(t, true, out["threshold_met"])
	assert.Equal(t, "threshold", out["stop_reason"])
	assert.Equal(t, "Tides rise and fall twice a day, pulled by the moon and the sun.", out["response"])
	past := out["past_loops"].([]any)
	require.Len(t, past, 2)
	first := past[0].(map[string]any)
	assert.Equal(t, 1, first["loop_number"])
	assert.Equal(t, 0.55, first["score"])
	assert.Equal(t, "more detail about the sun's role.", first["improvements"])
	assert.Equal(t, "Tides: the moon and the sun pull the sea twice a day.", res.Text())
}

func TestMaxLoopsKeepsLastAndBest(t *testing.T) {
	_, out := loopResult(t, "maxloops", "loop")
	assert.Equal(t, 3, out["loops_completed"])
	assert.Equal(t, "max_loops", out["stop_reason"])
	assert.Equal(t, false, out["threshold_met"])
	assert.Equal(t, 0.6, out["final_score"], "final_score is the last score")
	assert.Equal(t, 0.75, out["best_score"])
	assert.Equal(t, 2, out["best_iteration"])
	iters := out["iterations"].([]any)
	require.Len(t, iters, 3)
	assert.Equal(t, 0.5, iters[0].(map[string]any)["score"], "50%% is 0.5")
	assert.Equal(t, "judge", iters[0].(map[string]any)["score_source"])
}

func TestCognitiveExtraction(t *testing.T) {
	res, err := transcript(t, "cognitive")
	require.NoError(t, err)
	past := loopOut(t, res.Outputs, "loop")["past_loops"].([]any)
	first := past[0].(map[string]any)
	assert.Equal(t, "a strong weekly seasonality in sales. | that returns spike a...", first["insights"], "case-insensitive de-dup keeps the first spelling")
	assert.Equal(t, "quantify the holiday effect with numbers. | a comparison wit...", first["improvements"], "cut at 60 characters")
	assert.Equal(t, "the regional breakdown entirely.", first["mistakes"])
}

func TestCustomMetadataKeepsTypes(t *testing.T) {
	res, err := transcript(t, "metadata")
	require.NoError(t, err)
	past := loopOut(t, res.Outputs, "loop")["past_loops"].([]any)
	require.Len(t, past, 2)
	e := past[1].(map[string]any)
	assert.Equal(t, 2, e["iteration"])
	assert.Equal(t, 0.75, e["quality_score"])
	assert.Equal(t, 4, e["doubled"])
	assert.Equal(t, "pass 2 at 0.75", e["label"])
	assert.Equal(t, []any{true, true}, e["flags"])
	assert.Equal(t, 0.75, e["score"], "missing score key is added natively")
	assert.NotEmpty(t, e["timestamp"])
	_, hasInsights := e["insights"]
	assert.False(t, hasInsights, "a user map replaces the default map")
}

func TestNestedLoops(t *testing.T) {
	_, out := loopResult(t, "nested", "outer")
	assert.Equal(t, 2, out["loops_completed"])
	assert.Equal(t, 0.95, out["final_score"])
	inner := out["result"].(map[string]any)["inner"].(map[string]any)
	assert.Equal(t, 1, inner["loops_completed"], "the second outer pass's inner loop met its threshold at once")
	assert.Len(t, inner["past_loops"], 1, "the inner loop's history is its own")
}

func TestLoopTimeoutKeepsFinishedIterations(t *testing.T) {
	res, out := loopResult(t, "timeout", "loop")
	assert.Equal(t, "timeout", out["stop_reason"])
	assert.Equal(t, 1, out["loops_completed"], "the interrupted pass does not count (OrKa counts it)")
	assert.Equal(t, 1, out["count"])
	iters := out["iterations"].([]any)
	require.Len(t, iters, 2, "the interrupted pass is listed")
	assert.Equal(t, false, iters[1].(map[string]any)["completed"])
	assert.Len(t, out["past_loops"], 1, "the interrupted pass leaves no entry")
	assert.Equal(t, 0.2, out["final_score"])
	assert.Equal(t, "ok", res.Text(), "the workflow goes on after the loop")
}

func TestFailingAgentInsideIteration(t *testing.T) {
	_, out := loopResult(t, "failing", "loop")
	assert.Equal(t, 2, out["loops_completed"])
	assert.Equal(t, "threshold", out["stop_reason"])
	past := out["past_loops"].([]any)
	assert.Equal(t, 0.1, past[0].(map[string]any)["score"])
}
