package scout_test

import (
	"github.com/cogloop/cogloop/agents/event"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pool = `
  - {id: a, type: echo, prompt: "A({{ input }})"}
  - {id: b, type: echo, prompt: "B after {{ previous_outputs.a.response }}"}
  - {id: bad, type: fail, message: broke}
  - {id: after, type: echo, prompt: "saw {{ previous_outputs.b.response }}"}
`

// The shapes OrKa's path executor accepts all give the same run.
func TestPathExecutorSources(t *testing.T) {
	cases := []struct {
		name, response, source string
		want                   []string
	}{
		{"a list", `[a, b]`, "p", []string{"a", "b"}},
		{"a decision's target", `{decision: commit_path, target: [a, b]}`, "p.target", []string{"a", "b"}},
		{"a decision found whole", `{decision: commit_path, target: [a, b]}`, "p", []string{"a", "b"}},
		{"commit_next runs only the first", `{decision: commit_next, target: [b, a]}`, "p", []string{"b"}},
		{"commit_next with one id", `{decision: commit_next, target: a}`, "p.target", []string{"a"}},
		{"a shortlist's node ids", `{decision: shortlist, target: [{node_id: a, path: [a, b]}, {node_id: b, path: [b]}]}`, "p", []string{"a", "b"}},
		{"a shortlist sharing a first agent runs it once", `{decision: shortlist, target: [{node_id: a, path: [a, b]}, {node_id: a, path: [a]}]}`, "p", []string{"a"}},
		{"a decision inside a loop's result", `{loops_completed: 2, result: {check: {score: 0.9}, propose: {decision: commit_path, target: [b, a]}}}`, "p", []string{"b", "a"}},
		{"candidates with paths", `[{path: [a, b]}]`, "p", []string{"a", "b"}},
		{"JSON text", `'{"target": ["a", "b"]}'`, "p.response", []string{"a", "b"}},
		{"a path key", `{path: [a, b]}`, "p.response.path", []string{"a", "b"}},
		{"a nested result", `{result: {validated: {target: [a, b]}}}`, "p.response.result.validated", []string{"a", "b"}},
		{"a variant without result", `{validated: {target: [a]}}`, "p.response.result.validated", []string{"a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, x, rec := runExecutor(t, "p, x, after", tc.response, "path_source: "+tc.source)
			require.False(t, x.Failed(), x.Err)
			var got []string
			for _, id := range x.Fields["executed_path"].([]any) {
				got = append(got, id.(string))
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, "success", x.Fields["status"])
			assert.Equal(t, x.Fields["executed_path"], x.Response.(map[string]any)["executed_path"], "the response is the same mapping")
			results := x.Fields["results"].(map[string]any)
			assert.Len(t, results, len(tc.want))
			for _, id := range tc.want {
				_, ok := out.Children.Get(id)
				assert.True(t, ok, "%s is recorded after the executor", id)
				var started bool
				for _, e := range rec.Events() {
					if e.Kind == event.AgentStart && e.Node == "x › "+id {
						started = true
					}
				}
				assert.True(t, started, "%s runs as a step under the executor's path", id)
			}
		})
	}
}

// The agents run in order see the earlier ones, and agents after the
// executor see what it ran.
func TestPathExecutorDataFlow(t *testing.T) {
	w := loadWorkflow(t, `orchestrator: {id: w, agents: [p, x, after]}
agents:
  - {id: p, type: const, response: [a, b]}
  - {id: x, type: path_executor, path_source: p}`+pool)
	out, _, err := run(t, w, "q")
	require.NoError(t, err)
	assert.Equal(t, "B after A(q)", agenttest.Output(t, out.Children, "b").Response)
	assert.Equal(t, "saw B after A(q)", agenttest.Output(t, out.Children, "after").Response)
}

// input_source gives the agents another input.
func TestPathExecutorInputSource(t *testing.T) {
	w := loadWorkflow(t, `orchestrator: {id: w, agents: [p, prep, x]}
agents:
  - {id: p, type: const, response: [a]}
  - {id: prep, type: const, response: prepared}
  - {id: x, type: path_executor, path_source: p, input_source: prep.response}`+pool)
	out, _, err := run(t, w, "q")
	require.NoError(t, err)
	assert.Equal(t, "A(prepared)", agenttest.Output(t, out.Children, "a").Response)
}

func TestPathExecutorFailures(t *testing.T) {
	// execute runs the path [bad, a] under the failure policy.
	execute := func(t *testing.T, policy string) (out, x agents.Output) {
		out, x, _ = runExecutor(t, "p, x", "[bad, a]", "path_source: p, on_agent_failure: "+policy)
		return out, x
	}
	t.Run("continue records the failure and goes on", func(t *testing.T) {
		out, x := execute(t, "continue")
		require.False(t, x.Failed())
		assert.Equal(t, "partial", x.Fields["status"])
		assert.Equal(t, []any{`agent "bad" failed: x › bad: broke`}, x.Fields["errors"])
		assert.Equal(t, "A(q)", agenttest.Output(t, out.Children, "a").Response)
	})
	t.Run("abort stops at the failure and fails", func(t *testing.T) {
		out, x := execute(t, "abort")
		require.True(t, x.Failed())
		assert.Contains(t, x.Err, "on_agent_failure is abort: x › bad: broke")
		_, ran := out.Children.Get("a")
		assert.False(t, ran, "nothing runs after the failure")
	})
	cases := []struct{ name, response, source, want string }{
		{"unknown ids name themselves and the path", `{target: [a, ghost, spook]}`, "p.target",
			`x: path_source "p.target" (found at p.response.target) names "ghost", "spook", which no agent of this workflow defines (defined: p, x, a, b, bad, after)`},
		{"a fallback decision runs nothing", `{decision: fallback, target: [a]}`, "p",
			`x: path_source "p" holds the decision "fallback", which names no path to run`},
		{"a fallback inside a loop's result", `{result: {propose: {decision: fallback, target: null}}}`, "p",
			`x: path_source "p" holds the decision "fallback"`},
		{"no list", `just words here`, "p",
			`x: path_source "p" gives no agent list (tried p: no agent list there); earlier outputs: p`},
		{"a missing key", `{target: [a]}`, "p.nothing",
			`x: path_source "p.nothing" gives no agent list (tried p.nothing: p has no key "nothing"; p.response.nothing: p.response has no key "nothing")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, x, _ := runExecutor(t, "p, x", tc.response, "path_source: "+tc.source)
			require.True(t, x.Failed())
			assert.Contains(t, x.Err, tc.want)
			_, ran := out.Children.Get("a")
			assert.False(t, ran)
		})
	}
}

// Control agents named in a path (and the executor itself) are skipped with
// a warning.
func TestPathExecutorSkipsControlAgents(t *testing.T) {
	w := loadWorkflow(t, `orchestrator: {id: w, agents: [p, x]}
agents:
  - {id: p, type: const, response: [gs, x, a]}
  - {id: gs, type: graph-scout}
  - {id: x, type: path_executor, path_source: p}`+pool)
	out, rec, err := run(t, w, "q")
	require.NoError(t, err)
	assert.Equal(t, []any{"a"}, agenttest.Output(t, out.Children, "x").Fields["executed_path"])
	var warned []string
	for _, e := range rec.Events() {
		if e.Kind == event.Warning {
			warned = append(warned, e.Message)
		}
	}
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0], `names "gs", "x", which steer the workflow`)
}

func TestPathExecutorLoadErrors(t *testing.T) {
	cases := []struct{ name, def, want string }{
		{"bad on_agent_failure", `{id: x, type: path_executor, path_source: p, on_agent_failure: retry}`,
			`wf.yaml:4:50: agent "x": on_agent_failure must be continue or abort, not "retry"`},
		{"an undefined source", `{id: x, type: path_executor, path_source: q.target}`,
			`wf.yaml:4:34: agent "x": path_source "q.target" starts with "q", which no agent of this workflow defines (did you mean "p"?)`},
		{"the default source undefined", `{id: x, type: path_executor}`,
			`agent "x": path_source "validated_path" starts with "validated_path", which no agent of this workflow defines`},
		{"itself", `{id: x, type: path_executor, path_source: x.response}`,
			`path_source "x.response" starts at this path_executor itself`},
		{"an unknown key", `{id: x, type: path_executor, path_source: p, on_failure: abort}`,
			`unknown key "on_failure"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := loadErr(t, `orchestrator: {id: w, agents: [p, x]}
agents:
  - {id: p, type: const, response: [a]}
  - `+tc.def)
			assert.Contains(t, msg, tc.want)
			assert.False(t, strings.Contains(msg, "panic"))
		})
	}
}

// runExecutor runs the agents order names of a workflow with a const agent p
// answering response, path_executor x with keys (its YAML keys) and the
// agents of pool; it returns the run's output and x's, and the events.
func runExecutor(t *testing.T, order, response, keys string) (out, x agents.Output, rec *agenttest.Recorder) {
	t.Helper()
	w := loadWorkflow(t, `orchestrator: {id: w, agents: [`+order+`]}
agents:
  - {id: p, type: const, response: `+response+`}
  - {id: x, type: path_executor, `+keys+`}`+pool)
	out, rec, err := run(t, w, "q")
	require.NoError(t, err)
	return out, agenttest.Output(t, out.Children, "x"), rec
}
