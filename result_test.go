package cogloop_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
)

func TestFailedFinalAgentFailsTheRun(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [a, b]}
agents:
  - {id: a, type: scripted, prompt: x, responses: [fine]}
  - {id: b, type: scripted, prompt: x, responses: [{error: "model overloaded"}]}
`), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	assert.Contains(t, err.Error(), `final agent "b" failed`)
	assert.Contains(t, err.Error(), "b: scripted reply 1 of agent \"b\" is an error: model overloaded")
	assert.Equal(t, cogloop.StatusFailed, res.Status)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "b", res.Errors[0].Path)
	assert.Equal(t, "b", res.Errors[0].Agent)
	assert.Empty(t, res.Loops())
}

func TestCanceledRunIsFailed(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: scripted, prompt: x, responses: [fine]}
`), "wf.yaml")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := wf.Run(ctx, "x")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, cogloop.StatusFailed, res.Status)
}

// AgentIDs lists the ids of every workflow of the file, nested ones too.
func TestAgentIDsIncludeNestedWorkflows(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [l, final]}
agents:
  - id: l
    type: loop
    internal_workflow:
      orchestrator: {id: i, agents: [writer, critic]}
      agents:
        - {id: writer, type: scripted, prompt: x, responses: [a]}
        - {id: critic, type: scripted, prompt: x, responses: [b]}
  - {id: final, type: scripted, prompt: x, responses: [c]}
`), "wf.yaml")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"l", "final", "writer", "critic"}, wf.AgentIDs())
}

// A failover's inline children are agents of the file too (a --script
// answers them).
func TestAgentIDsIncludeFailoverChildren(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [f]}
agents:
  - id: f
    type: failover
    children:
      - {id: first, type: scripted, prompt: x, responses: [a]}
      - {id: second, type: duckduckgo, prompt: x}
`), "wf.yaml")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"f", "first", "second"}, wf.AgentIDs())
}

// A loop in a fork branch is listed once (the fork also records it next to
// itself), and a loop nested in a loop's internal workflow is found too.
func TestLoopsInForksAndLoops(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [fork_it, join_it, outer]}
agents:
  - {id: fork_it, type: fork, targets: [[branch_loop], [plain]]}
  - {id: join_it, type: join, group: fork_it}
  - id: branch_loop
    type: loop
    max_loops: 2
    internal_workflow:
      orchestrator: {id: b, agents: [scorer]}
      agents:
        - {id: scorer, type: scripted, prompt: x, responses: {cycle: ["SCORE: 0.95"]}}
  - {id: plain, type: scripted, prompt: x, responses: [hi]}
  - id: outer
    type: loop
    max_loops: 1
    internal_workflow:
      orchestrator: {id: o, agents: [inner]}
      agents:
        - id: inner
          type: loop
          max_loops: 2
          score_threshold: 0.5
          internal_workflow:
            orchestrator: {id: i, agents: [critic]}
            agents:
              - {id: critic, type: scripted, prompt: x, responses: {cycle: ["SCORE: 0.6"]}}
`), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	var got []string
	for _, l := range res.Loops() {
		got = append(got, l.Path+" "+string(l.StopReason))
	}
	assert.Equal(t, []string{"branch_loop threshold", "outer max_loops", "outer › inner threshold"}, got)
}

// A model reply that holds keys named like a loop's (loops_completed,
// stop_reason) in a workflow without a loop is no loop (issue 28 B3): the
// loop's typed result comes from the loop itself, never from output keys.
func TestReplyWithLoopKeysIsNoLoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wf.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`orchestrator: {id: w, agents: [extract]}
agents:
  - {id: extract, type: validate_and_structure, model: m, prompt: "extract"}
`), 0o600))
	wf, err := cogloop.Load(path)
	require.NoError(t, err)
	script, err := scripted.Parse([]byte(`extract: ['{"valid": true, "reason": "ok", "loops_completed": 7, "stop_reason": "budget", "final_score": 0.5}']`), "r.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x", cogloop.WithModels(script))
	require.NoError(t, err)
	out, ok := res.Outputs.Get("extract")
	require.True(t, ok)
	require.Equal(t, 7.0, out.Map()["loops_completed"], "the reply's keys are in the output (the case under test)")
	assert.Empty(t, res.Loops())
}
