package flow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// says is a Go agent answering text.
func says(text string) agents.Agent {
	return agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
		return agents.Output{Response: text}, nil
	})
}

// seesAll answers with the responses of ids as its earlier outputs hold them.
func seesAll(ids ...string) agents.Agent {
	return agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
		var got []string
		for _, id := range ids {
			o, _ := in.Previous.Get(id)
			got = append(got, fmt.Sprint(o.Response))
		}
		return agents.Output{Response: fmt.Sprint(got)}, nil
	})
}

// A fork and a router built in Go run in a sequence as the YAML ones do: the
// fork's branch agents are seen by later agents, the router's chosen route
// runs right after it.
func TestForkAndRouterFromGo(t *testing.T) {
	fork, err := flow.NewForkFrom(flow.ForkConfig{ID: "both", Branches: [][]agents.Step{
		{agents.NewStep("a1", "go", says("A1")), agents.NewStep("a2", "go", seesAll("a1"))},
		{agents.NewStep("b", "go", says("B"))},
	}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1", "a2", "b"}, fork.Refs())
	router, err := flow.NewRouterFrom(flow.RouterConfig{ID: "route", DecisionKey: "b",
		Routes: []flow.Route{
			{Key: "A", Steps: []agents.Step{agents.NewStep("for_a", "go", says("went A"))}},
			{Key: "b", Steps: []agents.Step{agents.NewStep("for_b", "go", says("went B"))}},
		}})
	require.NoError(t, err)
	seq := agents.Sequence{Steps: []agents.Step{
		agents.NewStep(fork.ID(), fork.Type(), fork),
		agents.NewStep(router.ID(), router.Type(), router),
		agents.NewStep("after", "go", seesAll("a2", "b", "for_b")),
	}}
	out, err := seq.Run(context.Background(), agents.Input{Value: "x"})
	require.NoError(t, err)
	assert.Equal(t, []string{"both", "a1", "a2", "b", "route", "for_b", "after"}, out.Children.IDs())
	assert.Equal(t, "[[A1] B went B]", out.Response, "a2 saw a1; the route matched b's answer B by its folded key")
	r, _ := out.Children.Get("route")
	assert.Equal(t, flow.MatchFolded, r.Fields["match"])
}

// The Go constructors name what is wrong.
func TestForkAndRouterFromGoErrors(t *testing.T) {
	_, err := flow.NewForkFrom(flow.ForkConfig{ID: "f", Mode: "sideways", Branches: [][]agents.Step{
		{agents.NewStep("a", "go", says("A"))}, {}, {agents.NewStep("a", "go", nil)},
	}})
	require.Error(t, err)
	for _, want := range []string{`fork "f": Mode must be parallel or sequential, not "sideways"`, `fork "f": branch 2 is empty`,
		`step "a" is in branch 1 and 3`, `step "a" has no agent`} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = flow.NewForkFrom(flow.ForkConfig{ID: "f"})
	assert.ErrorContains(t, err, "no Branches")
	_, err = flow.NewRouterFrom(flow.RouterConfig{ID: "r", Routes: []flow.Route{{Key: "x"}, {Key: "x"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `router "r": DecisionKey is empty`)
	assert.Contains(t, err.Error(), `route key "x" is given twice`)
}
