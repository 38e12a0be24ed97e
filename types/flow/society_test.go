package flow_test

import (
	"context"
	"os"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cognitive-society example: fork → join → moderator inside a loop, three
// reasoners in parallel each round, converging on round 2.
func TestSocietyExampleConvergesOnIteration2(t *testing.T) {
	const dir = "../../examples/society/"
	wf, err := cogloop.Load(dir + "workflow.yaml")
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	data, err := os.ReadFile(dir + "replies.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse(data, dir+"replies.yaml")
	require.NoError(t, err)

	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "Should our town close its centre to cars?",
		cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	assert.Empty(t, res.Failed())

	loop := get(t, res.Outputs, "society_deliberation").Map()
	assert.Equal(t, 2, loop["loops_completed"])
	assert.Equal(t, 0.94, loop["final_score"])
	assert.Equal(t, true, loop["threshold_met"])
	result := loop["result"].(map[string]any)
	for _, id := range []string{"fork_agents", "logical_reasoner", "empathetic_reasoner", "skeptical_reasoner", "join_agents", "moderator"} {
		assert.Contains(t, result, id, "the iteration map holds every agent of the round")
	}
	past := loop["past_loops"].([]any)
	require.Len(t, past, 2)
	first := past[0].(map[string]any)
	assert.Equal(t, 0.62, first["consensus_score"])
	assert.Equal(t, "close the core streets in two phases with delivery windows. | keep a shuttle and disabled parking at the edges. | measure footfall monthly and be ready to adjust.",
		first["strategies"], "insights come from the three branch agents, in declaration order")

	prompts := map[string]string{}
	branches := 0
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd {
			prompts[e.Node] = e.Prompt
		}
		if e.Kind == event.BranchEnd {
			branches++
		}
	}
	assert.Equal(t, 6, branches)
	assert.Contains(t, prompts["society_deliberation › iteration 2 › fork_agents › logical_reasoner"],
		"- round 1 (consensus 0.62): close the core streets in two phases")
	assert.Contains(t, prompts["society_deliberation › iteration 2 › moderator"],
		"Skeptical: A six-month first phase with monthly footfall numbers is a fair test.")
	assert.Contains(t, prompts["recommendation"], "After 2 rounds the society reached\na consensus of 0.94:")
	assert.Contains(t, res.Text(), "Close the market square to cars first")
}
