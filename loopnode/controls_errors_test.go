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

func TestLoopControlConfigErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown condition", "    stop_when: [{when_happy: true}]\n", []string{"wf.yaml:5:18", `unknown condition "when_happy"`, "stable_output"}},
		{"bad expression", "    stop_when: [{until: \"loop_number >\"}]\n", []string{"wf.yaml:5:", "until"}},
		{"bad operator", "    stop_when:\n      - continue_while: {output: a.ok, operator: \"=~\", value: 1}\n", []string{"wf.yaml:6:", `operator must be one of == != < > <= >=, not "=~"`}},
		{"condition names unknown agent", "    stop_when: [{evaluator: judge}]\n", []string{"wf.yaml:5:29", `stop_when names "judge", which the internal workflow does not define`}},
		{"stable of unknown agent", "    stop_when: [{stable_output: {threshold: 0.9, of: ghost}}]\n", []string{"wf.yaml:5:", `"ghost"`}},
		{"mapping names unknown agent", "    input_mappings: [{source: {previous: {node: nobody}}, target: x}]\n", []string{"wf.yaml:5:", `input_mappings names "nobody"`}},
		{"output mapping unknown agent", "    output_mappings: [{source: {node: nobody, output: response}, target: x}]\n", []string{`output_mappings names "nobody"`}},
		{"bad mapping target", "    input_mappings: [{source: {outer: topic}, target: \"my var\"}]\n", []string{"target must be a template variable name"}},
		{"unknown builtin", "    output_mappings: [{source: {builtin: elapsed}, target: x}]\n", []string{`unknown builtin "elapsed"`}},
		{"bad take", "    output_mappings: [{source: {node: a}, target: x, take: middle}]\n", []string{`take must be last, first, all or best, not "middle"`}},
		{"bad feedback", "    feedback: merge\n", []string{"wf.yaml:5:5", `feedback must be none, replace or append, not "merge"`}},
		{"negative delay", "    delay: -2s\n", []string{"wf.yaml:5:5", "negative"}},
		{"unparseable delay", "    delay: soon\n", []string{"wf.yaml:5:5", "PT30S"}},
		{"timeout over a day", "    timeout: 25h\n", []string{"wf.yaml:5:5", "at most 24h"}},
		{"max_iterations alias with max_loops", "    max_loops: 3\n    max_iterations: 4\n", []string{"another name for max_loops"}},
		{"check before on score", "    stop_when: [{score: {threshold: 0.5}, check: before}]\n", []string{"check: before works with while, until and continue_while"}},
		{"all mixes phases", "    stop_when:\n      all:\n        - {until: \"true\", check: before}\n        - {until: \"true\"}\n", []string{"mixes check: before and check: after"}},
		{"stagnation without settings", "    stop_when: [{stagnation: {}}]\n", []string{"stagnation needs repeats"}},
		{"bad on_error", "    on_error: halt\n", []string{"wf.yaml:5:5", `on_error must be continue`, `or stop`, `not "halt"`}},
		{"max_failed_passes zero", "    max_failed_passes: 0\n", []string{"wf.yaml:5:5", "max_failed_passes must be between 1 and 1000, not 0"}},
		{"max_failed_passes not a number", "    max_failed_passes: two\n", []string{"wf.yaml:5:5", "max_failed_passes"}},
		{"two kinds in one condition", "    stop_when: [{until: \"true\", while: \"true\"}]\n", []string{"a condition has one kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assertLoadErrors(t, tc.body, tc.want) })
	}
}

// assertLoadErrors loads a loop with body added to its keys and checks the
// load error holds every want.
func assertLoadErrors(t *testing.T, body string, want []string) {
	t.Helper()
	_, err := cogloop.Parse([]byte(controlsHead+body+controlsInner), "wf.yaml")
	require.Error(t, err)
	for _, w := range want {
		assert.Contains(t, err.Error(), w)
	}
}

func TestMaxIterationsAlias(t *testing.T) {
	wf, err := cogloop.Parse([]byte(controlsHead+"    max_iterations: 2\n    stop_when: [{until: \"false\"}]\n"+controlsInner), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	o, _ := res.Outputs.Get("l")
	assert.Equal(t, 2, o.Fields["loops_completed"])
	assert.Equal(t, "max_loops", o.Fields["stop_reason"])
}

func TestAppendFeedbackNeedsText(t *testing.T) {
	wf, err := cogloop.Parse([]byte(controlsHead+"    max_loops: 3\n    feedback: append\n    stop_when: [{until: \"false\"}]\n"+controlsInner), "wf.yaml")
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

// A long delay between iterations is cut short by the loop's timeout.
func TestDelayInterruptedByTimeout(t *testing.T) {
	wf, err := cogloop.Parse([]byte(controlsHead+"    max_loops: 3\n    delay: PT1H\n    timeout: 0.2\n    stop_when: [{until: \"false\"}]\n"+controlsInner), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	o, _ := res.Outputs.Get("l")
	assert.Equal(t, "timeout", o.Fields["stop_reason"])
	assert.Equal(t, 1, o.Fields["loops_completed"])
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
