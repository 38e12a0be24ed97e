package loopnode_test

import (
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 17: loop controls, round 2. Each test is a golden transcript
// (testdata/<name>, -update rewrites it) plus assertions on what matters.

func TestReturnLastSuccessfulAndIterationResponses(t *testing.T) {
	_, out := loopResult(t, "last_successful", "l")
	assert.Equal(t, "max_loops", out["stop_reason"])
	assert.Equal(t, "second draft, also long. SCORE: 0.5", out["response"], "pass 3 failed: pass 2's answer")
	assert.Equal(t, 2, out["returned_iteration"])
	its := out["iterations"].([]any)
	require.Len(t, its, 3)
	assert.Equal(t, "first draft,…", its[0].(map[string]any)["response"], "cut to max_length 12")
	assert.Equal(t, "", its[2].(map[string]any)["response"], "the failed pass has no answer")
}

func TestIterationTimeoutCutsAPassAndContinues(t *testing.T) {
	_, out := loopResult(t, "iteration_timeout", "l")
	assert.Equal(t, "threshold", out["stop_reason"])
	assert.Equal(t, 2, out["loops_completed"], "the timed-out pass does not count")
	its := out["iterations"].([]any)
	require.Len(t, its, 3)
	second := its[1].(map[string]any)
	assert.Equal(t, false, second["completed"])
	assert.Equal(t, true, second["timed_out"])
	assert.Contains(t, second["errors"].([]any)[0].(map[string]any)["message"], "ran over iteration_timeout 2s")
}

func TestIterationTimeoutUnderOnErrorStop(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: t, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    on_error: stop
    iteration_timeout: 50ms
    internal_workflow:
      orchestrator: {id: i, agents: [worker]}
      agents:
        - {id: worker, type: scripted, responses: [{text: "slow", delay: 1h}]}
`), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(t.Context(), "x")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	loops := res.Loops()
	require.Len(t, loops, 1)
	assert.Equal(t, loopnode.StopReason(loopnode.StopError), loops[0].StopReason)
	o, _ := res.Outputs.Get("l")
	assert.Contains(t, o.Fields["error"], "ran over iteration_timeout 50ms and was cut short (on_error: stop)")
}

func TestMissingRequiredInputIsARunError(t *testing.T) {
	res, err := transcript(t, "declared_missing")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	assert.Contains(t, err.Error(), `required input "topic" is missing`)
	o, _ := res.Outputs.Get("l")
	assert.True(t, o.Failed(), "the loop's output is an error record")
	assert.Contains(t, o.Err, "declared at testdata/declared_missing/workflow.yaml:9:9")
}

func TestRetryOnHTTPStatuses(t *testing.T) {
	_, out := loopResult(t, "retry_status", "l")
	w := out["result"].(map[string]any)["writer"].(map[string]any)
	assert.Equal(t, "a draft. SCORE: 0.9", w["response"], "the 503 was retried")
	c := out["result"].(map[string]any)["critic"].(map[string]any)
	assert.Equal(t, "error", c["status"], "the unlisted 500 was not retried")
}
