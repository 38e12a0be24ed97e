package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type countingScript struct {
	*scripted.Script
	calls int
}

func (c *countingScript) ModelFor(id string) (agents.Model, error) {
	m, err := c.Script.ModelFor(id)
	if err != nil {
		return nil, err
	}
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		c.calls++
		return m.Generate(ctx, req)
	}), nil
}

// A loop's budget is checked before each model call with that call's worst case
// reserved: the call that would overshoot is never made, and the loop stops with
// stop_reason budget, reporting usage and cost per iteration and in total.
func TestLoopBudgetStopsBeforeOvershoot(t *testing.T) {
	for _, where := range []string{"loop", "workflow"} {
		t.Run(where, func(t *testing.T) {
			loopBudget, wfBudget := "", ""
			if where == "loop" {
				loopBudget = "    budget: {max_tokens: 400, max_cost: 1}\n"
			} else {
				wfBudget = ", budget: {max_tokens: 400, max_cost: 1}"
			}
			src := `orchestrator: {id: w, agents: [l], pricing: {house: {prompt: 1, completion: 2}}` + wfBudget + `}
agents:
  - id: l
    type: loop
    max_loops: 10
    score_threshold: 0.99
` + loopBudget + `    internal_workflow:
      orchestrator: {id: i, agents: [writer]}
      agents:
        - {id: writer, type: openai-answer, model: house, max_tokens: 100, prompt: "Write"}
`
			wf, err := cogloop.Parse([]byte(src), "wf.yaml")
			require.NoError(t, err)
			script, err := scripted.Parse([]byte("writer: {cycle: [{text: 'SCORE: 0.1', usage: {prompt_tokens: 20, completion_tokens: 80}}]}\n"), "s.yaml")
			require.NoError(t, err)
			cs := &countingScript{Script: script}
			res, err := wf.Run(context.Background(), "x", cogloop.WithModels(cs))
			require.NoError(t, err)
			o, _ := res.Outputs.Get("l")
			require.False(t, o.Failed(), o.Err)
			assert.Equal(t, "budget", o.Fields["stop_reason"])
			// Each call uses 100 tokens and reserves 100 + the prompt estimate, so
			// the fourth call would not fit in 400: three calls are made.
			assert.Equal(t, 3, cs.calls, "the call that would overshoot is not made")
			usage := o.Fields["usage"].(map[string]any)
			assert.Equal(t, 60, usage["prompt_tokens"])
			assert.Equal(t, 240, usage["completion_tokens"])
			assert.InDelta(t, 3*(20*1.0+80*2.0)/1000, usage["cost"], 1e-12)
			iters := o.Fields["iterations"].([]any)
			assert.InDelta(t, (20*1.0+80*2.0)/1000, iters[0].(map[string]any)["usage"].(map[string]any)["cost"], 1e-12)
			assert.LessOrEqual(t, res.Usage.Total(), 400, "the run never overshoots")
		})
	}
}
