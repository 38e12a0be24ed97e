package loopnode_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStopWhenEvaluator(t *testing.T) {
	res, err := transcript(t, "evaluator")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "evaluator_done", out["stop_reason"])
	assert.Equal(t, 2, out["count"])
	assert.Equal(t, "polished draft", out["response"])
}

func TestStopWhenStableOutput(t *testing.T) {
	res, err := transcript(t, "stable")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "stable_output", out["stop_reason"])
	assert.Equal(t, 3, out["loops_completed"], "pass 2 differs too much from pass 1; pass 3 is within 0.9 of pass 2")
}

func TestStopWhenUntilExpression(t *testing.T) {
	res, err := transcript(t, "until")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "condition", out["stop_reason"])
	assert.Equal(t, 2, out["loops_completed"])
}

func TestContinueWhileWithMappingsAndReturnBest(t *testing.T) {
	res, err := transcript(t, "continue_while")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "condition", out["stop_reason"])
	assert.Equal(t, 3, out["loops_completed"])
	assert.Equal(t, 2, out["best_iteration"], "scores 0.4, 0.9, 0.7 from the review's JSON")
	assert.Equal(t, "parser v2", out["response"], "return: best")
	assert.Equal(t, map[string]any{
		"approved":   true,
		"drafts":     []any{"parser v1", "parser v2", "parser v3"},
		"best_draft": "parser v2",
		"iterations": 3,
	}, out["outputs"])
}

func TestCheckBeforeRunsZeroIterations(t *testing.T) {
	res, err := transcript(t, "before")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, 0, out["loops_completed"])
	assert.Equal(t, "condition", out["stop_reason"])
	assert.Equal(t, "ok", res.Text())
}

func TestStagnationOnRepeatedAnswers(t *testing.T) {
	res, err := transcript(t, "stagnation")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "stagnation", out["stop_reason"])
	assert.Equal(t, 4, out["loops_completed"], "answers 2, 3 and 4 are the same once whitespace and case are folded")
}

func TestStagnationByScoreAndAllGroup(t *testing.T) {
	res, err := transcript(t, "improvement")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	assert.Equal(t, "stagnation", out["stop_reason"])
	assert.Equal(t, 4, out["loops_completed"], "best 0.612 - 0.6 over 2 rounds < 0.05")
}

func TestFeedbackAppend(t *testing.T) {
	res, err := transcript(t, "append")
	require.NoError(t, err)
	out := loopOut(t, res.Outputs, "l")
	prompt := out["result"].(map[string]any)["writer"].(map[string]any)["formatted_prompt"]
	assert.Equal(t, "the topic\n---\nfirst answer\n---\nsecond answer", prompt)
}

func TestNestedLoopVariables(t *testing.T) {
	_, err := transcript(t, "nested_vars")
	require.NoError(t, err)
}
