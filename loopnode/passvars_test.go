package loopnode_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// promptLog is a model that answers every call with "SCORE: 0.1" and keeps
// the prompts it was sent.
type promptLog struct{ prompts []string }

func (p *promptLog) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(_ context.Context, req agents.Request) (agents.Reply, error) {
		p.prompts = append(p.prompts, req.Prompt)
		return agents.Reply{Text: "pass " + req.Prompt + " SCORE: 0.1"}, nil
	}), nil
}

// The pass variables are set in place from pass to pass: a mapping bound on
// the first pass only is gone on the next, one bound on later passes only is
// absent on the first, and the loop variables move on every pass.
func TestPassVariablesFollowEachPass(t *testing.T) {
	src := `
orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
    input_mappings:
      - {source: {outer: input}, target: first_only, iterations: first}
      - {source: {previous: {node: a}}, target: later, iterations: subsequent}
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - id: a
          type: openai-answer
          model: m
          prompt: "[{{ loop_index }}/{{ loopCount }}/{{ l_loop_count }} {{ first_only | default('-') }} {{ (later | default('-'))[:8] }}]"
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	log := &promptLog{}
	_, err = wf.Run(context.Background(), "topic", cogloop.WithModels(log))
	require.NoError(t, err)
	assert.Equal(t, []string{"[0/1/1 topic -]", "[1/2/2 - pass [0/]", "[2/3/3 - pass [1/]"}, log.prompts)
	for _, p := range log.prompts {
		assert.False(t, strings.Contains(p, "{{"), p)
	}
}
