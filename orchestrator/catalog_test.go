package orchestrator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
)

// The builder describes the agents visible from a nested workflow (its own,
// then the enclosing ones, a nearer definition hiding an outer one of the
// same id) with their hints, and resolves them to built agents at run time.
func TestBuilderCatalog(t *testing.T) {
	var visible []agents.AgentInfo
	var resolve func(string) (agents.Step, bool)
	reg := agenttest.Registry()
	reg.MustRegister("probe", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		visible = b.Visible()
		resolve = b.Resolver()
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{}, nil }), nil
	})
	reg.MustRegister("modeled", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		c.Accept("model", "prompt")
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{}, nil }), nil
	})
	reg.MustRegister("nest", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		return b.Workflow(c.Node("internal_workflow"), "nested")
	})
	src := `orchestrator: {id: w, agents: [n]}
agents:
  - {id: answer, type: echo, prompt: "outer answer", is_terminal: true, capabilities: [answer_emit]}
  - id: n
    type: nest
    internal_workflow:
      orchestrator: {id: inner, agents: [p]}
      agents:
        - {id: p, type: probe}
        - {id: answer, type: echo, prompt: "inner answer"}
  - {id: z, type: const, response: zed}
`
	_, _, err := Parse([]byte(src), "wf.yaml", reg)
	require.NoError(t, err)
	var ids []string
	for _, a := range visible {
		ids = append(ids, a.ID)
	}
	assert.Equal(t, []string{"p", "answer", "n", "z"}, ids)
	assert.Equal(t, agents.AgentInfo{ID: "answer", Type: "echo", Prompt: "inner answer"}, visible[1], "the nearer definition hides the outer one")

	st, ok := resolve("z")
	require.True(t, ok)
	assert.Equal(t, "const", st.Type)
	out, err := st.Agent.Run(context.Background(), agents.Input{})
	require.NoError(t, err)
	assert.Equal(t, "zed", out.Response)
	_, ok = resolve("ghost")
	assert.False(t, ok)

	// The hints of the outer definition, seen from the top level.
	_, _, err = Parse([]byte(`orchestrator: {id: w, agents: [p]}
agents:
  - {id: p, type: probe}
  - {id: answer, type: modeled, prompt: "outer answer", is_terminal: true, capabilities: [answer_emit], model: gpt-4o}
`), "wf.yaml", reg)
	require.NoError(t, err)
	assert.Equal(t, agents.AgentInfo{ID: "answer", Type: "modeled", Capabilities: []string{"answer_emit"}, Terminal: true,
		Prompt: "outer answer", Model: "gpt-4o"}, visible[1])
}
