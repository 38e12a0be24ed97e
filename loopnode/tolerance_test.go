package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runLoop(t *testing.T, keys, agents string) map[string]any {
	t.Helper()
	src := "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n" + keys +
		"    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents:\n" + agents
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	res, _ := wf.Run(context.Background(), "x")
	require.NotNil(t, res)
	o, ok := res.Outputs.Get("l")
	require.True(t, ok)
	return o.Fields
}

// A steady +0.1 per pass improves the best score by 0.3 over 3 rounds, which
// meets min_improvement: 0.3 although 0.7-0.4 is 0.29999999999999993 in float64.
func TestStagnationFloatRoundingNeverDecides(t *testing.T) {
	replies := `["SCORE: 0.1", "SCORE: 0.2", "SCORE: 0.3", "SCORE: 0.4", "SCORE: 0.5", "SCORE: 0.6", "SCORE: 0.7", "SCORE: 0.8"]`
	out := runLoop(t, "    max_loops: 8\n    score_threshold: 0.95\n    stop_when: [score, {stagnation: {min_improvement: 0.3, rounds: 3}}]\n",
		"        - {id: a, type: scripted, responses: "+replies+"}\n")
	assert.Equal(t, "max_loops", out["stop_reason"])
	assert.Equal(t, 8, out["loops_completed"])

	// A real shortfall still stops: +0.1 per pass against 0.35.
	out = runLoop(t, "    max_loops: 8\n    score_threshold: 0.95\n    stop_when: [score, {stagnation: {min_improvement: 0.35, rounds: 3}}]\n",
		"        - {id: a, type: scripted, responses: "+replies+"}\n")
	assert.Equal(t, "stagnation", out["stop_reason"])
	assert.Equal(t, 4, out["loops_completed"])
}

// Passes with a failed agent are not counted: an agent that fails every call
// gives the same (empty) answer and no improvement, which is no stagnation.
func TestStagnationSkipsFailedPasses(t *testing.T) {
	failing := "        - {id: a, type: scripted, responses: {cycle: [{error: \"model offline\"}]}}\n"
	for _, cond := range []string{"{stagnation: {repeats: 2}}", "{stagnation: {min_improvement: 0.1, rounds: 1}}"} {
		out := runLoop(t, "    max_loops: 4\n    stop_when: [score, "+cond+"]\n", failing)
		assert.NotEqual(t, "stagnation", out["stop_reason"], cond)
	}
	// Failed passes in between do not hide a real repetition either.
	mixed := "        - {id: a, type: scripted, responses: [same, {error: boom}, same, same]}\n"
	out := runLoop(t, "    max_loops: 4\n    stop_when: [score, {stagnation: {repeats: 2}}]\n", mixed)
	assert.Equal(t, "stagnation", out["stop_reason"])
	assert.Equal(t, 3, out["loops_completed"])
}

func TestContinueWhileComparesNumericTextAsNumbers(t *testing.T) {
	tests := []struct {
		reply, op, value string
		loops            int
	}{
		{`{\"count\": \"10\"}`, "<", "9", 1},     // "10" < 9 is false: stop after pass 1
		{`{\"count\": \"8\"}`, "<", "9", 3},      // 8 < 9 holds: go on to max_loops
		{`{\"count\": \"1e1\"}`, "==", "10", 3},  // the same number
		{`{\"count\": \"ten\"}`, "==", "ten", 3}, // text stays text
	}
	for _, tc := range tests {
		t.Run(tc.reply+tc.op+tc.value, func(t *testing.T) {
			out := runLoop(t, "    max_loops: 3\n    stop_when:\n      - continue_while: {output: a.count, operator: \""+tc.op+"\", value: "+tc.value+"}\n",
				"        - {id: a, type: scripted, responses: {cycle: [\""+tc.reply+"\"]}}\n")
			assert.Equal(t, tc.loops, out["loops_completed"])
		})
	}
}

func TestLoopDurationsRejectNaNInfinityAndOverflow(t *testing.T) {
	for _, kv := range []string{"timeout: 1e300", "timeout: inf", "timeout: NaN", "delay: .inf", "delay: 1e19"} {
		src := "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n    " + kv +
			"\n    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: [x]}]\n"
		_, err := cogloop.Parse([]byte(src), "wf.yaml")
		require.Error(t, err, kv)
		assert.Contains(t, err.Error(), "wf.yaml:5:5", kv)
		assert.Regexp(t, "too long|not a number", err.Error(), kv)
	}
}
