package orchestrator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// outerSub is a workflow whose one agent runs an internal workflow given as
// {agents: [...]} alone; the agents follow.
const outerSub = `orchestrator: {id: w, agents: [outer]}
agents:
  - id: outer
    type: sub
    internal_workflow:
      agents:
`

// An internal workflow given as {agents: [...]} alone runs its agents in list
// order (depends_on still reorders). At top level the orchestrator block stays
// required (load_test.go).
func TestInternalWorkflowWithoutOrchestratorRunsItsAgentsInOrder(t *testing.T) {
	src := outerSub + `        - {id: first, type: echo, prompt: "one"}
        - {id: third, type: echo, prompt: "three after {{ previous_outputs.second.response }}", depends_on: [second]}
        - {id: second, type: echo, prompt: "two after {{ previous_outputs.first.response }}"}
`
	w, probs, err := parseBudget(t, src)
	require.NoError(t, err)
	assert.Empty(t, probs)
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r"}})
	require.NoError(t, err)
	outer, ok := out.Children.Get("outer")
	require.True(t, ok)
	assert.Equal(t, []string{"first", "second", "third"}, outer.Children.IDs())
	assert.Equal(t, "three after two after one", out.Text())
}

// refRunner runs the agent named by its target key itself (as a fork runs its
// branches).
type refRunner struct {
	target string
	agent  agents.Agent
}

func (r *refRunner) Refs() []string { return []string{r.target} }

func (r *refRunner) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	return r.agent.Run(ctx, in)
}

// An agent that another listed agent runs (a fork's branch, a failover child)
// is left to it, not run a second time from the list.
func TestInternalWorkflowWithoutOrchestratorLeavesReferencedAgentsToTheirRunner(t *testing.T) {
	reg := budgetRegistry(t)
	reg.MustRegister("runs", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		id := c.String("target", "")
		a, err := b.Ref(id, c.ValuePos("target"))
		return &refRunner{target: id, agent: a}, err
	})
	src := outerSub + `        - {id: runner, type: runs, target: branch}
        - {id: branch, type: echo, prompt: "branch"}
        - {id: last, type: echo, prompt: "last"}
`
	w, probs, err := Parse([]byte(src), "wf.yaml", reg)
	require.NoError(t, err)
	assert.Empty(t, probs, "no run-twice warning: branch is not queued")
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r"}})
	require.NoError(t, err)
	outer, _ := out.Children.Get("outer")
	assert.Equal(t, []string{"runner", "last"}, outer.Children.IDs())
}

func TestInternalWorkflowProblems(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"empty agents":          {outerSub[:len(outerSub)-len("      agents:\n")] + "      agents: []\n", `wf.yaml:6:7: internal_workflow: agents is empty`},
		"no agents":             {outerSub[:len(outerSub)-len("      agents:\n")] + "      other: 1\n", `wf.yaml:6:7: internal_workflow: missing the agents list`},
		"null orchestrator":     {outerSub + "        - {id: a, type: echo, prompt: p}\n      orchestrator:\n", `wf.yaml:8:7: internal_workflow: orchestrator is empty`},
		"top-level null":        {"orchestrator:\nagents:\n  - {id: a, type: echo, prompt: p}\n", `wf.yaml:1:1: workflow: orchestrator is empty`},
		"bad agent in the list": {outerSub + "        - {id: a, type: echo, promt: p}\n", `wf.yaml:7:31: agent "a": unknown key "promt"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := parseBudget(t, tc.src)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
