package loopnode_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOnErrorStopEndsTheLoopAtTheFirstFailedPass(t *testing.T) {
	res, err := transcript(t, "on_error_stop")
	require.ErrorIs(t, err, cogloop.ErrRunFailed, "a loop that stopped on an error fails the run, which still returns its outputs")
	out := loopOut(t, res.Outputs, "loop")
	assert.Equal(t, "error", out["stop_reason"], "the error policy wins over the threshold the pass met")
	assert.Equal(t, 2, out["loops_completed"], "the failed pass ran to the end")
	assert.Equal(t, `loop: iteration 2 had a failed agent (on_error: stop): loop › iteration 2 › drafter: scripted reply 2 of agent "drafter" is an error: model overloaded`, out["error"])
	iters := out["iterations"].([]any)
	require.Len(t, iters, 2)
	errs := iters[1].(map[string]any)["errors"].([]any)
	require.Len(t, errs, 1)
	assert.Equal(t, "drafter", errs[0].(map[string]any)["agent"])
	assert.Equal(t, "stopped: error after 2", agenttest.Output(t, res.Outputs, "after").Prompt)
}

// A loop that stops on an error fails the run and says why; the workflow's
// next agent still sees the loop's outcome.
func TestLoopStopsOnAnError(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		passes int
		err    string // the start of the loop's error field
	}{
		// Pass 1 failed, pass 2 did not (the count starts again), passes 3 and 4 failed.
		{"failed_passes", 4, "loop: 2 passes in a row had a failed agent (max_failed_passes: 2), the last: loop › iteration 4 › fetcher:"},
		// The pass ran; its condition could not be judged.
		{"condition_error", 1, `loop › iteration 1: stop_when until "previous_outputs.review.verdict.lower() == 'done'" at testdata/condition_error/workflow.yaml:9:16 cannot be evaluated: undefined attribute "verdict" in previous_outputs.review.verdict`},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			res, err := transcript(t, tc.dir)
			require.ErrorIs(t, err, cogloop.ErrRunFailed)
			out := loopOut(t, res.Outputs, "loop")
			assert.Equal(t, "error", out["stop_reason"])
			assert.Equal(t, tc.passes, out["loops_completed"])
			assert.True(t, strings.HasPrefix(out["error"].(string), tc.err), "error %q starts with %q", out["error"], tc.err)
			assert.Equal(t, fmt.Sprintf("stopped: error after %d", tc.passes), agenttest.Output(t, res.Outputs, "after").Prompt)
		})
	}
}

func TestFatalErrorCutsThePassAndStopsTheRun(t *testing.T) {
	res, err := transcript(t, "fatal")
	require.Error(t, err)
	assert.True(t, fault.IsFatal(err))
	assert.ErrorIs(t, err, cogloop.ErrRunFailed)
	assert.Equal(t, `run failed: workflow "fatal": improve › iteration 2 › critic: agent "critic" was called more times than it has scripted replies (1 in testdata/fatal/replies.yaml): scripted replies exhausted (add replies for "critic" to testdata/fatal/replies.yaml, or write {cycle: [...]} to repeat them)`, err.Error())
	_, ran := res.Outputs.Get("after")
	assert.False(t, ran, "nothing runs after a fatal error")
}

// Every way a condition can fail to evaluate stops the loop with an error that
// names the condition, its position and the cause; names tested with "is
// defined" or given a default are not errors.
func TestConditionEvaluationErrors(t *testing.T) {
	tests := []struct {
		name, cond string
		want       string // the loop's error after "l › iteration 1: "; "" when the loop runs to max_loops
	}{
		{"undefined name", `{until: "scroe >= 0.5"}`, `stop_when until "scroe >= 0.5" at wf.yaml:6:25 cannot be evaluated: name "scroe" is not defined (did you mean score?)`},
		{"two undefined names", `{while: "budget > spent"}`, `stop_when while "budget > spent" at wf.yaml:6:25 cannot be evaluated: names "budget", "spent" are not defined (a condition sees input, previous_outputs, loop_number, score, best_score, past_loops, the loop variables and input mappings)`},
		{"method of an undefined value", `{until: "previous_outputs.a.verdict.lower() == 'ok'"}`, `stop_when until "previous_outputs.a.verdict.lower() == 'ok'" at wf.yaml:6:25 cannot be evaluated: undefined attribute "verdict" in previous_outputs.a.verdict`},
		{"division by zero", `{until: "score / 0 > 1"}`, `stop_when until "score / 0 > 1" at wf.yaml:6:25 cannot be evaluated: division by zero`},
		{"inside any", `{any: [{score: {threshold: 0.99}}, {until: "nope"}]}`, `stop_when until "nope" at wf.yaml:6:60 cannot be evaluated: name "nope" is not defined`},
		{"continue_while on a missing field", `{continue_while: {output: a.approved, operator: "==", value: false}}`, `stop_when continue_while a.approved at wf.yaml:6:17 cannot be evaluated: the output of "a" has no field "approved" (its response: "x")`},
		{"check before", `{while: "input.budget_left > 0 and nope", check: before}`, ``},
		{"is defined is fine", `{until: "nope is defined"}`, ""},
		{"default is fine", `{until: "nope | default(false)"}`, ""},
		// issue 32 item 1: a missing field is an error, not a silent false
		{"missing key of an output", `{until: "previous_outputs.a.verdict == 'ok'"}`, `stop_when until "previous_outputs.a.verdict == 'ok'" at wf.yaml:6:25 cannot be evaluated: undefined attribute "verdict" in previous_outputs.a.verdict`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := controlsHead + "    max_loops: 2\n    stop_when: [" + tc.cond + "]\n" + controlsInner
			wf, err := cogloop.Parse([]byte(src), "wf.yaml")
			require.NoError(t, err)
			res, err := wf.Run(context.Background(), map[string]any{"budget_left": 3})
			o, _ := res.Outputs.Get("l")
			requireStatus(t, res, err, o)
			if tc.name == "check before" {
				assert.Equal(t, "error", o.Fields["stop_reason"])
				assert.Equal(t, 0, o.Fields["loops_completed"], "the check before pass 1 failed")
				assert.Contains(t, o.Fields["error"], `l: stop_when while "input.budget_left > 0 and nope" at wf.yaml:6:25 cannot be evaluated: name "nope" is not defined`)
				return
			}
			if tc.want == "" {
				assert.NotEqual(t, "error", o.Fields["stop_reason"], o.Fields["error"])
				return
			}
			assert.Equal(t, "error", o.Fields["stop_reason"])
			assert.Equal(t, 1, o.Fields["loops_completed"])
			assert.Contains(t, o.Fields["error"], "l › iteration 1: "+tc.want)
		})
	}
}

// What makes a pass failed: an error record at any depth (a fork's branch
// agent), a nested loop that stopped with an error; not the children a
// failover tried before one succeeded, nor the failures a nested loop survived.
func TestWhatMakesAPassFailed(t *testing.T) {
	tests := []struct {
		name, inner string
		failed      []any // the failed agents of pass 1; nil when the pass did not fail
	}{
		{"fork branch agent", `
        orchestrator: {id: i, agents: [f]}
        agents:
          - {id: f, type: fork, targets: [[a], [b]]}
          - {id: a, type: scripted, responses: [{error: down}]}
          - {id: b, type: scripted, responses: [ok]}`, []any{"a"}},
		{"failover that recovered", `
        orchestrator: {id: i, agents: [fo]}
        agents:
          - id: fo
            type: failover
            children:
              - {id: a, type: scripted, responses: [{error: down}]}
              - {id: b, type: scripted, responses: [ok]}`, nil},
		{"nested loop that stopped with an error", `
        orchestrator: {id: i, agents: [nested]}
        agents:
          - id: nested
            type: loop
            on_error: stop
            internal_workflow:
              orchestrator: {id: n, agents: [a]}
              agents: [{id: a, type: scripted, responses: [{error: down}]}]`, []any{"nested"}},
		{"nested loop that survived a failure", `
        orchestrator: {id: i, agents: [nested]}
        agents:
          - id: nested
            type: loop
            max_loops: 2
            score_threshold: 0.5
            internal_workflow:
              orchestrator: {id: n, agents: [a]}
              agents: [{id: a, type: scripted, responses: [{error: down}, "SCORE: 0.9"]}]`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := controlsHead + "    max_loops: 1\n    on_error: stop\n    internal_workflow:" + tc.inner + "\n"
			wf, err := cogloop.Parse([]byte(src), "wf.yaml")
			require.NoError(t, err)
			rec := &agenttest.Recorder{}
			res, err := wf.Run(context.Background(), "x", cogloop.WithObserver(rec.Observe))
			o, _ := res.Outputs.Get("l")
			requireStatus(t, res, err, o)
			var failed any
			for _, e := range rec.Events() {
				if e.Kind == event.LoopIteration && e.Node == "l" {
					failed = e.Data["failed_agents"]
				}
			}
			if tc.failed == nil {
				assert.Nil(t, failed)
				assert.NotEqual(t, "error", o.Fields["stop_reason"], o.Fields["error"])
				return
			}
			assert.Equal(t, tc.failed, failed)
			assert.Equal(t, "error", o.Fields["stop_reason"])
			assert.Contains(t, o.Fields["error"], "iteration 1 had a failed agent (on_error: stop)")
		})
	}
}

// max_failed_passes counts passes in a row: with 3, two failed passes are
// survived; on_error: stop wins over it.
func TestMaxFailedPassesSetting(t *testing.T) {
	inner := "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: [{error: e1}, {error: e2}, ok, {error: e3}, {error: e4}, {error: e5}]}]\n"
	tests := []struct {
		keys      string
		reason    string
		completed int
	}{
		{"    max_failed_passes: 3\n", "error", 6},
		{"    max_failed_passes: 1\n", "error", 1},
		{"", "error", 2},
		{"    max_failed_passes: 5\n", "max_loops", 6},
		{"    max_failed_passes: 5\n    on_error: stop\n", "error", 1},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSpace(tc.keys), func(t *testing.T) {
			wf, err := cogloop.Parse([]byte(controlsHead+"    max_loops: 6\n    stop_when: [{until: \"false\"}]\n"+tc.keys+inner), "wf.yaml")
			require.NoError(t, err)
			res, err := wf.Run(context.Background(), "x")
			o, _ := res.Outputs.Get("l")
			requireStatus(t, res, err, o)
			assert.Equal(t, tc.reason, o.Fields["stop_reason"], o.Fields["error"])
			assert.Equal(t, tc.completed, o.Fields["loops_completed"])
		})
	}
}

// requireStatus checks that a run whose loop stopped with an error failed
// (with the result) and any other run succeeded.
func requireStatus(t *testing.T, res *cogloop.Result, err error, loop agents.Output) {
	t.Helper()
	if msg, _ := loop.Fields["error"].(string); loop.Fields["stop_reason"] == "error" || strings.Contains(msg, "no pass has an answer") {
		require.ErrorIs(t, err, cogloop.ErrRunFailed)
		require.Equal(t, cogloop.StatusFailed, res.Status)
		return
	}
	require.NoError(t, err)
	require.Equal(t, cogloop.StatusOK, res.Status)
}
