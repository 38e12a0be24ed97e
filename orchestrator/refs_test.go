package orchestrator

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runner is a test composite that runs the agents named by its runs key itself
// (a Referrer and an Exposer), and routes to the agent named by next (a Director).
type runner struct {
	refs  []agents.Step
	route []agents.Step
}

func (r runner) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	var kids *agents.Outputs
	for _, s := range r.refs {
		out, err := agents.RunStep(ctx, s, in)
		if err != nil {
			return agents.Output{}, err
		}
		kids = kids.With(s.ID, out)
	}
	return agents.Output{Response: "ran", Children: kids}, nil
}
func (r runner) ExposesChildren() bool { return true }
func (r runner) Next(agents.Output) []agents.Step {
	return r.route
}
func (r runner) Refs() []string {
	var ids []string
	for _, s := range r.refs {
		ids = append(ids, s.ID)
	}
	return ids
}

func registryWithRunner() *agents.Registry {
	reg := agenttest.Registry()
	reg.MustRegister("runner", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		var r runner
		for _, id := range c.Strings("runs") {
			a, _ := b.Ref(id, c.ValuePos("runs"))
			typ, _ := b.TypeOf(id)
			r.refs = append(r.refs, agents.Step{ID: id, Type: typ, Agent: a})
		}
		if id := c.String("next", ""); id != "" {
			a, _ := b.Ref(id, c.ValuePos("next"))
			r.route = []agents.Step{{ID: id, Type: "const", Agent: a}}
		}
		return r, nil
	})
	return reg
}

func TestExposedChildrenAndRoutesShapeTheRun(t *testing.T) {
	w, warns, err := Parse([]byte(`orchestrator: {id: w, agents: [r, b, last]}
agents:
  - {id: r, type: runner, runs: [a, b], next: routed}
  - {id: a, type: const, response: A}
  - {id: b, type: const, response: B}
  - {id: routed, type: echo, prompt: "routed after {{ previous_outputs.a.response }}"}
  - {id: last, type: echo, prompt: "{{ previous_outputs.routed.response }}"}
`), "wf.yaml", registryWithRunner())
	require.NoError(t, err)
	require.Len(t, warns, 1)
	assert.Equal(t, `wf.yaml:1:35: orchestrator: agents lists "b", which runner "r" also runs; it will run twice (remove it from this list unless that is what you want)`, warns[0].Error())
	assert.Equal(t, []string{"r", "b", "last"}, w.Queue(), "the queue never changes")

	for range 2 { // a second run starts from the same queue
		out, err := w.Run(context.Background(), agents.Input{Value: "x"})
		require.NoError(t, err)
		assert.Equal(t, []string{"r", "a", "b", "routed", "last"}, out.Children.IDs())
		assert.Equal(t, "routed after A", out.Response)
	}
}

func TestBuilderAnswersTypeAndDefinitions(t *testing.T) {
	var gotType string
	var gotOK bool
	var defined []string
	reg := agenttest.Registry()
	reg.MustRegister("probe", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		gotType, gotOK = b.TypeOf("a")
		_, missing := b.TypeOf("ghost")
		assert.False(t, missing)
		defined = b.Defined()
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{}, nil }), nil
	})
	_, _, err := Parse([]byte("orchestrator: {id: w, agents: [p]}\nagents:\n  - {id: a, type: const}\n  - {id: p, type: probe}\n  - {id: z, type: echo}\n"), "wf.yaml", reg)
	require.NoError(t, err)
	assert.True(t, gotOK)
	assert.Equal(t, "const", gotType)
	assert.Equal(t, []string{"a", "p", "z"}, defined)
}
