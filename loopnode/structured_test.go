package loopnode_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
)

// TestLoopStopsOnStructuredScore: a judge with output_schema answers a JSON
// object; the loop reads its score field by path (no regex) and stops at the
// threshold. The judge's first reply breaks the schema and is repaired.
func TestLoopStopsOnStructuredScore(t *testing.T) {
	src := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.8
    score_extraction_config:
      strategies: [{type: nested_path, path: judge.score}]
    internal_workflow:
      orchestrator: {id: i, agents: [writer, judge]}
      agents:
        - {id: writer, type: scripted, responses: {cycle: ["a draft"]}}
        - id: judge
          type: openai-answer
          model: gpt-test
          prompt: "Judge {{ previous_outputs.writer.response }}"
          output_schema:
            type: object
            properties: {score: {type: number}, reason: {type: string}}
            required: [score, reason]
`
	script := agenttest.Script(t, `
judge:
  - '{"score": "high", "reason": "fine"}'
  - '{"score": 0.4, "reason": "too short"}'
  - '{"score": 0.9, "reason": "good"}'
`)
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	require.Empty(t, wf.Warnings)
	res, err := wf.Run(context.Background(), "task", cogloop.WithModels(script))
	require.NoError(t, err)
	out, ok := res.Outputs.Get("l")
	require.True(t, ok)
	assert.Equal(t, "threshold", out.Fields["stop_reason"])
	assert.Equal(t, 2, out.Fields["loops_completed"], "pass 1 scored 0.4 (after one repair), pass 2 scored 0.9")
	assert.InDelta(t, 0.9, out.Fields["final_score"], 1e-12)
}
