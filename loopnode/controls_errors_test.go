package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const controlsHead = "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n"
const controlsInner = "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: {cycle: [x]}}]\n"

func TestLoopConfigErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown condition", loopSrc("    stop_when: [{when_happy: true}]\n"), []string{"wf.yaml:5:18", `unknown condition "when_happy"`, "stable_output"}},
		{"bad expression", loopSrc("    stop_when: [{until: \"loop_number >\"}]\n"), []string{"wf.yaml:5:", "until"}},
		{"bad operator", loopSrc("    stop_when:\n      - continue_while: {output: a.ok, operator: \"=~\", value: 1}\n"), []string{"wf.yaml:6:", `operator must be one of == != < > <= >=, not "=~"`}},
		{"condition names unknown agent", loopSrc("    stop_when: [{evaluator: judge}]\n"), []string{"wf.yaml:5:29", `stop_when names "judge", which the internal workflow does not define`}},
		{"stable of unknown agent", loopSrc("    stop_when: [{stable_output: {threshold: 0.9, of: ghost}}]\n"), []string{"wf.yaml:5:", `"ghost"`}},
		{"mapping names unknown agent", loopSrc("    input_mappings: [{source: {previous: {node: nobody}}, target: x}]\n"), []string{"wf.yaml:5:", `input_mappings names "nobody"`}},
		{"output mapping unknown agent", loopSrc("    output_mappings: [{source: {node: nobody, output: response}, target: x}]\n"), []string{`output_mappings names "nobody"`}},
		{"bad mapping target", loopSrc("    input_mappings: [{source: {outer: topic}, target: \"my var\"}]\n"), []string{"target must be a template variable name"}},
		{"unknown builtin", loopSrc("    output_mappings: [{source: {builtin: elapsed}, target: x}]\n"), []string{`unknown builtin "elapsed"`}},
		{"bad take", loopSrc("    output_mappings: [{source: {node: a}, target: x, take: middle}]\n"), []string{`take must be last, first, all or best, not "middle"`}},
		{"bad feedback", loopSrc("    feedback: merge\n"), []string{"wf.yaml:5:5", `feedback must be none, replace or append, not "merge"`}},
		{"negative delay", loopSrc("    delay: -2s\n"), []string{"wf.yaml:5:5", "negative"}},
		{"unparseable delay", loopSrc("    delay: soon\n"), []string{"wf.yaml:5:5", "PT30S"}},
		{"timeout over a day", loopSrc("    timeout: 25h\n"), []string{"wf.yaml:5:5", "at most 24h"}},
		{"max_iterations alias with max_loops", loopSrc("    max_loops: 3\n    max_iterations: 4\n"), []string{"another name for max_loops"}},
		{"check before on score", loopSrc("    stop_when: [{score: {threshold: 0.5}, check: before}]\n"), []string{"check: before works with while, until and continue_while"}},
		{"all mixes phases", loopSrc("    stop_when:\n      all:\n        - {until: \"true\", check: before}\n        - {until: \"true\"}\n"), []string{"mixes check: before and check: after"}},
		{"stagnation without settings", loopSrc("    stop_when: [{stagnation: {}}]\n"), []string{"stagnation needs repeats"}},
		{"bad on_error", loopSrc("    on_error: halt\n"), []string{"wf.yaml:5:5", `on_error must be continue`, `or stop`, `not "halt"`}},
		{"max_failed_passes zero", loopSrc("    max_failed_passes: 0\n"), []string{"wf.yaml:5:5", "max_failed_passes must be between 1 and 1000, not 0"}},
		{"max_failed_passes not a number", loopSrc("    max_failed_passes: two\n"), []string{"wf.yaml:5:5", "max_failed_passes"}},
		{"two kinds in one condition", loopSrc("    stop_when: [{until: \"true\", while: \"true\"}]\n"), []string{"a condition has one kind"}},
		{"max_loops out of range", loopSrc("    max_loops: 0\n"), []string{"wf.yaml:5:5", "max_loops must be between 1 and 1000, not 0"}},
		{"max_loops too big", loopSrc("    max_loops: 5000\n"), []string{"wf.yaml:5:5", "between 1 and 1000"}},
		{"threshold not a number", loopSrc("    score_threshold: high\n"), []string{"wf.yaml:5:5", `score_threshold must be a number, not "high"`}},
		{"bad score pattern", loopSrc("    score_extraction_pattern: \"SCORE: ([0-9\"\n"), []string{"wf.yaml:5:31", "score_extraction_pattern", "invalid pattern"}},
		{"bad strategy pattern", loopSrc("    score_extraction_config:\n      strategies:\n        - type: pattern\n          patterns: [\"ok: (\\\\d+)\", \"(unclosed\"]\n"), []string{"wf.yaml:8:36", "strategies[0].patterns[1]"}},
		{"bad cognitive pattern", loopSrc("    cognitive_extraction:\n      extract_patterns:\n        insights: [\"(?<\"]\n"), []string{"wf.yaml:7:20", "insights[0]"}},
		{"unknown strategy type", loopSrc("    score_extraction_config:\n      strategies: [{type: magic}]\n"), []string{"wf.yaml:6:21", `unknown strategy type "magic"`}},
		{"missing internal workflow", controlsHead + "    max_loops: 2\n", []string{"wf.yaml:3:5", "missing internal_workflow"}},
		{"unknown key", loopSrc("    max_loop: 3\n"), []string{"wf.yaml:5:5", `unknown key "max_loop"`, `did you mean "max_loops"`}},
		{"inner problem has its position", controlsHead + "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: nope}]\n", []string{"wf.yaml:7:30", `unknown type "nope"`}},
		{"metadata template syntax", loopSrc("    past_loops_metadata:\n      n: \"{{ loop_number \"\n"), []string{"wf.yaml:6:", "past_loops_metadata"}},
		{"iteration_timeout zero", loopSrc("    iteration_timeout: 0s\n"), []string{"wf.yaml:5:5", "iteration_timeout must be above zero"}},
		{"iteration_timeout over a day", loopSrc("    iteration_timeout: 25h\n"), []string{"wf.yaml:5:5", "at most 24h"}},
		{"vars not a mapping", loopSrc("    vars: [a]\n"), []string{"wf.yaml:5:5", "vars must be a mapping"}},
		{"var hides a loop variable", loopSrc("    vars: {loop_index: 1}\n"), []string{"wf.yaml:5:12", `"loop_index" is a name the loop binds itself`}},
		{"bad var name", loopSrc("    vars: {\"my var\": 1}\n"), []string{"wf.yaml:5:12", "is not a variable name"}},
		{"update of an undeclared var", loopSrc("    vars: {queue: []}\n    update: {quene: \"{{ queue }}\"}\n"), []string{"wf.yaml:6:14", `"quene" is not a declared variable (did you mean "queue"?)`}},
		{"update syntax error", loopSrc("    vars: {n: 0}\n    update: {n: \"{{ n + }}\"}\n"), []string{"wf.yaml:6:17", "update: n:"}},
		{"return unknown", loopSrc("    return: newest\n"), []string{"wf.yaml:5:5", "last, best or last_successful"}},
		{"max_length zero", loopSrc("    max_length: 0\n"), []string{"wf.yaml:5:5", "max_length"}},
		{"input without name", loopSrc("    inputs: [{required: true}]\n"), []string{"wf.yaml:5:", "name must be a variable name"}},
		{"required with default", loopSrc("    inputs: [{name: topic, required: true, default: x}]\n"), []string{"wf.yaml:5:", "required and has a default"}},
		{"unknown input key", loopSrc("    inputs: [{name: topic, requird: true}]\n"), []string{"wf.yaml:5:", `"requird"`}},
		{"undeclared output", loopSrc("    vars: {rounds: 0}\n    outputs: [rouns]\n"), []string{"wf.yaml:6:15", `"rouns" is neither an output_mappings target nor a loop variable (did you mean "rounds"?)`}},
		{"mapping of an undeclared var", loopSrc("    vars: {rounds: 0}\n    output_mappings: [{source: {var: round}, target: r}]\n"), []string{"wf.yaml:6:38", `var "round" is not a loop variable (did you mean "rounds"?)`}},
		{"workflow_ref and internal_workflow", loopSrc("    workflow_ref: inner.yaml\n"), []string{"wf.yaml:5:5", "give internal_workflow or workflow_ref, not both"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assertLoadErrors(t, tc.src, tc.want) })
	}
}

// loopSrc is a workflow of one loop with keys added to its keys.
func loopSrc(keys string) string { return controlsHead + keys + controlsInner }

// assertLoadErrors loads src and checks the load error holds every want.
func assertLoadErrors(t *testing.T, src string, want []string) {
	t.Helper()
	_, err := cogloop.Parse([]byte(src), "wf.yaml")
	for _, w := range want {
		assert.ErrorContains(t, err, w)
	}
}

// Loops whose controls decide when they stop.
func TestLoopControlsStop(t *testing.T) {
	for _, tc := range []struct {
		name, keys, reason string
		passes             int
	}{
		{"max_iterations is max_loops", "    max_iterations: 2\n", "max_loops", 2},
		// A long delay between iterations is cut short by the loop's timeout.
		{"delay interrupted by the timeout", "    max_loops: 3\n    delay: PT1H\n    timeout: 0.2\n", "timeout", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runLoop(t, tc.keys+"    stop_when: [{until: \"false\"}]\n", "        - {id: a, type: scripted, responses: {cycle: [x]}}\n")
			assert.Equal(t, tc.reason, out["stop_reason"])
			assert.Equal(t, tc.passes, out["loops_completed"])
		})
	}
}

func TestAppendFeedbackNeedsText(t *testing.T) {
	wf, err := cogloop.Parse([]byte(loopSrc("    max_loops: 3\n    feedback: append\n    stop_when: [{until: \"false\"}]\n")), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), map[string]any{"topic": "tides"})
	require.ErrorIs(t, err, cogloop.ErrRunFailed, "a loop stopped with an error fails the run")
	o, _ := res.Outputs.Get("l")
	assert.Equal(t, "error", o.Fields["stop_reason"])
	assert.Equal(t, 1, o.Fields["loops_completed"], "the first pass runs on the input as given; the second fails to start and does not count")
	assert.Contains(t, o.Fields["error"], "l › iteration 2: feedback: append joins text")
	iters := o.Fields["iterations"].([]any)
	require.Len(t, iters, 2, "the cut pass is listed")
	assert.Equal(t, true, iters[0].(map[string]any)["completed"])
	assert.Equal(t, false, iters[1].(map[string]any)["completed"])
}

// Nested loops count against one ceiling per run.
func TestMaxTotalIterations(t *testing.T) {
	src := `orchestrator: {id: w, agents: [outer], max_total_iterations: 5}
agents:
  - id: outer
    type: loop
    max_loops: 3
    stop_when: [{until: "false"}]
    internal_workflow:
      orchestrator: {id: oi, agents: [inner]}
      agents:
        - id: inner
          type: loop
          max_loops: 3
          stop_when: [{until: "false"}]
          internal_workflow:
            orchestrator: {id: ii, agents: [a]}
            agents: [{id: a, type: scripted, responses: {cycle: [x]}}]
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	var reasons []any
	res, err := wf.Run(context.Background(), "x", cogloop.WithObserver(func(e event.Event) {
		if e.Kind == event.LoopEnd {
			reasons = append(reasons, e.Data["stop_reason"])
		}
	}))
	require.NoError(t, err)
	// outer 1 (1) + inner 3 (4); outer 2 (5) + inner refused (6 > 5); outer 3 refused.
	assert.Equal(t, []any{"max_loops", "max_total_iterations", "max_total_iterations"}, reasons)
	o, _ := res.Outputs.Get("outer")
	assert.Contains(t, o.Fields["error"], "max_total_iterations")
}
