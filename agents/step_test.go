package agents_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func constStep(id string, v any) agents.Step {
	return agents.Step{ID: id, Type: "const", Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
		return agents.Output{Response: v, Usage: spend.Usage{PromptTokens: 1}}, nil
	})}
}

func failStep(id string, err error) agents.Step {
	return agents.Step{ID: id, Type: "fail", Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
		return agents.Output{Children: (*agents.Outputs)(nil).With("partial", agents.Output{Response: 1})}, err
	})}
}

// exposer is a composite whose children later steps see.
type exposer struct{ kids *agents.Outputs }

func (e exposer) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	return agents.Output{Response: "parent", Children: e.kids}, nil
}
func (exposer) ExposesChildren() bool { return true }

// director sends the run to next after it.
type director struct{ next []agents.Step }

func (d director) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	return agents.Output{Response: "routed"}, nil
}
func (d director) Next(out agents.Output) []agents.Step { return d.next }

// selfDirector routes to itself forever.
type selfDirector struct{}

func (selfDirector) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	return agents.Output{Response: "again"}, nil
}
func (s selfDirector) Next(out agents.Output) []agents.Step {
	return []agents.Step{agents.NewStep("loop", "", s)}
}

func TestSequenceRecordsStepsExposedChildrenAndRoutes(t *testing.T) {
	kids := (*agents.Outputs)(nil).With("k1", agents.Output{Response: "K1"}).With("k2", agents.Output{Response: "K2"})
	seeK2 := agents.Step{ID: "reader", Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
		k2, _ := in.Previous.Get("k2")
		before, _ := in.Previous.Get("before")
		return agents.Output{Response: before.Text() + "+" + k2.Text()}, nil
	})}
	q := agents.Sequence{Steps: []agents.Step{
		agents.NewStep("comp", "fork", exposer{kids: kids}),
		agents.NewStep("r", "router", director{next: []agents.Step{constStep("x", "X"), constStep("y", "Y")}}),
		seeK2,
	}}
	rec := &agenttest.Recorder{}
	in := agents.Input{Previous: (*agents.Outputs)(nil).With("before", agents.Output{Response: "B"}), Path: "outer", Run: &agents.Run{Observe: rec.Observe}}
	out, err := q.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, []string{"comp", "k1", "k2", "r", "x", "y", "reader"}, out.Children.IDs(), "Children hold only this run's records, in run order")
	assert.Equal(t, "B+K2", out.Response)
	assert.Equal(t, spend.Usage{PromptTokens: 2}, out.Usage, "exposed children are not counted again")
	var nodes []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentStart {
			nodes = append(nodes, e.Node)
		}
	}
	assert.Equal(t, []string{"outer › comp", "outer › r", "outer › x", "outer › y", "outer › reader"}, nodes)
}

func TestSequenceStopOnError(t *testing.T) {
	cause := errors.New("model said no")
	steps := []agents.Step{constStep("a", "A"), failStep("bad", cause), constStep("c", "C")}

	out, err := agents.Sequence{Steps: steps}.Run(context.Background(), agents.Input{Path: "f"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "bad", "c"}, out.Children.IDs())
	bad, _ := out.Children.Get("bad")
	assert.Equal(t, "f › bad: model said no", bad.Err)
	assert.Equal(t, []string{"partial"}, bad.Children.IDs(), "an error record keeps the children")

	out, err = agents.Sequence{Steps: steps, StopOnError: true}.Run(context.Background(), agents.Input{Path: "f"})
	require.ErrorIs(t, err, cause)
	assert.Equal(t, "f › bad: model said no", err.Error())
	assert.Equal(t, []string{"a", "bad"}, out.Children.IDs())
	assert.Equal(t, "A", out.Response)
}

func TestSequenceBoundsInsertedSteps(t *testing.T) {
	out, err := agents.Sequence{Steps: []agents.Step{agents.NewStep("loop", "", selfDirector{}), constStep("after", "A")}}.Run(context.Background(), agents.Input{})
	require.NoError(t, err)
	last, _ := out.Children.Get("loop")
	require.True(t, last.Failed())
	assert.Contains(t, last.Err, "routes inserted more than 1000 agents")
	assert.Equal(t, "A", out.Response, "the rest of the queue still runs")
}

func TestSequenceCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stopper := agents.Step{ID: "stop", Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
		cancel()
		return agents.Output{}, ctx.Err()
	})}
	out, err := agents.Sequence{Steps: []agents.Step{constStep("a", "A"), stopper, constStep("never", 0)}}.Run(ctx, agents.Input{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, []string{"a"}, out.Children.IDs())
}

func TestRunStepRecoversPanicsAndNilAgents(t *testing.T) {
	out, err := agents.RunStep(context.Background(), agents.Step{ID: "p", Agent: agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
		panic("boom")
	})}, agents.Input{})
	require.NoError(t, err)
	assert.Contains(t, out.Err, "p: panic: boom")
	assert.Contains(t, out.Err, "goroutine")

	out, err = agents.RunStep(context.Background(), agents.Step{ID: "n"}, agents.Input{})
	require.NoError(t, err)
	assert.Equal(t, "n: agent was not built (see the load problems)", out.Err)
}

func TestOutputsWithAll(t *testing.T) {
	p := (*agents.Outputs)(nil).With("a", agents.Output{Response: 1}).With("b", agents.Output{Response: 2})
	q := (*agents.Outputs)(nil).With("c", agents.Output{Response: 3}).With("a", agents.Output{Response: 4})
	r := (*agents.Outputs)(nil).With("d", agents.Output{Response: 5})
	n := p.WithAll(q, nil, r)
	assert.Equal(t, []string{"a", "b", "c", "d"}, n.IDs())
	a, _ := n.Get("a")
	assert.Equal(t, 4, a.Response, "a repeated id keeps its place and takes the new output")
	a, _ = p.Get("a")
	assert.Equal(t, 1, a.Response, "the receiver does not change")
	assert.Same(t, p, p.WithAll(nil), "nothing to add returns the receiver")
}

// Without earlier outputs a sequence's records and what its steps see share
// one log: each step still sees exactly the outputs before it, and what it was
// handed stays so after later steps (and a repeated id) are recorded.
func TestSequenceWithoutEarlierOutputsHandsStableSnapshots(t *testing.T) {
	kids := (*agents.Outputs)(nil).With("k1", agents.Output{Response: "K1"})
	var seen []*agents.Outputs
	keep := func(id string) agents.Step {
		return agents.Step{ID: id, Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			seen = append(seen, in.Previous)
			return agents.Output{Response: id + " saw " + fmt.Sprint(in.Previous.IDs())}, nil
		})}
	}
	q := agents.Sequence{Steps: []agents.Step{keep("a"), agents.NewStep("comp", "", exposer{kids: kids}), keep("b"), keep("a")}}
	for _, prev := range []*agents.Outputs{nil, {}} {
		seen = nil
		out, err := q.Run(context.Background(), agents.Input{Previous: prev})
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "comp", "k1", "b"}, out.Children.IDs())
		last, _ := out.Children.Get("a")
		assert.Equal(t, "a saw [a comp k1 b]", last.Text(), "a repeated id takes the new output")
		require.Len(t, seen, 3)
		assert.Empty(t, seen[0].IDs())
		assert.Equal(t, []string{"a", "comp", "k1"}, seen[1].IDs())
		assert.Equal(t, []string{"a", "comp", "k1", "b"}, seen[2].IDs())
		first, _ := seen[1].Get("a")
		assert.Equal(t, "a saw []", first.Text(), "a snapshot keeps the output it had")
		m := map[string]map[string]any{}
		out.Children.EachMap(func(id string, mm map[string]any) bool {
			m[id] = mm
			return true
		})
		again := map[string]map[string]any{}
		seen[2].EachMap(func(id string, mm map[string]any) bool {
			again[id] = mm
			return true
		})
		assert.Equal(t, "K1", m["k1"]["response"])
		assert.Equal(t, reflect.ValueOf(m["b"]).Pointer(), reflect.ValueOf(again["b"]).Pointer(),
			"the record a step saw and the sequence's record are one: its map is made once")
	}
}

// TestFailuresOnlyObserverSeesOnlyFailedSteps: an observer whose Wants
// reports WantFailures (and not agent.end) receives the agent.end events of
// the steps that failed, with their error, and none of the steps that
// succeeded.
func TestFailuresOnlyObserverSeesOnlyFailedSteps(t *testing.T) {
	var got []event.Event
	run := &agents.Run{Observe: func(e event.Event) { got = append(got, e) },
		Wants: func(kind string) bool { return kind == agents.WantFailures }}
	record := func(ctx context.Context, in agents.Input) (agents.Output, error) {
		return agents.Output{Err: "bad input"}, nil
	}
	seq := agents.Sequence{Steps: []agents.Step{constStep("ok", "fine"), failStep("broken", errors.New("boom")),
		{ID: "record", Type: "rec", Agent: agents.Func(record)}, constStep("ok2", "fine")}}
	_, err := seq.Run(context.Background(), agents.Input{Run: run})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i, want := range []struct{ agent, err string }{{"broken", "broken: boom"}, {"record", "bad input"}} {
		assert.Equal(t, event.AgentEnd, got[i].Kind)
		assert.Equal(t, want.agent, got[i].Agent)
		assert.Equal(t, want.err, got[i].Error)
	}
}

// wrapper is a wrapper agent (as timeout: and retry: build): it runs the agent
// and declares no ability of its own.
type wrapper struct{ agent agents.Agent }

func (w wrapper) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	return w.agent.Run(ctx, in)
}
func (w wrapper) Unwrap() agents.Agent { return w.agent }

// TestNewStepReadsAbilitiesThroughWrappers: a router and a fork behind two
// wrappers still route and expose their children (issue 28 B1); a literal
// step of the same agent runs it and nothing more.
func TestNewStepReadsAbilitiesThroughWrappers(t *testing.T) {
	kids := (*agents.Outputs)(nil).With("k1", agents.Output{Response: "K1"})
	fork := wrapper{wrapper{exposer{kids: kids}}}
	router := wrapper{wrapper{director{next: []agents.Step{constStep("x", "X")}}}}
	out, err := agents.Sequence{Steps: []agents.Step{agents.NewStep("comp", "fork", fork), agents.NewStep("r", "router", router)}}.
		Run(context.Background(), agents.Input{})
	require.NoError(t, err)
	assert.Equal(t, []string{"comp", "k1", "r", "x"}, out.Children.IDs())

	out, err = agents.Sequence{Steps: []agents.Step{{ID: "comp", Agent: fork}, {ID: "r", Agent: router}}}.
		Run(context.Background(), agents.Input{})
	require.NoError(t, err)
	assert.Equal(t, []string{"comp", "r"}, out.Children.IDs())
}
