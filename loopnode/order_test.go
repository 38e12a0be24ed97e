package loopnode_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
)

// After a loop, templates see its output in OrKa's key order: the
// previous_outputs entry of orchestrator/metrics.py (response, result,
// past_loops, loops_completed, ...), its response in the order of
// nodes/loop/runner.py's result, the pass's agents in run order and each
// past_loops entry in past_loop_builder.py's order (the past_loops_metadata
// keys as written, then loop_number, score, timestamp).
func TestTemplatesSeeTheLoopInOrKaOrder(t *testing.T) {
	src := `
orchestrator: {id: w, agents: [l, after]}
agents:
  - id: l
    type: loop
    max_loops: 1
    past_loops_metadata: {zeta: "{{ score }}", alpha: "{{ loop_number }}"}
    internal_workflow:
      orchestrator: {id: i, agents: [writer, judge]}
      agents:
        - {id: writer, type: scripted, responses: ["draft"]}
        - {id: judge, type: scripted, responses: ["SCORE: 0.9"]}
  - id: after
    type: scripted
    prompt: |
      {% for k in previous_outputs.l %}{{ k }},{% endfor %}
      {% for k in previous_outputs.l.response %}{{ k }},{% endfor %}
      {{ previous_outputs.l.result | list }}
      {{ previous_outputs.l.past_loops[0] }}
      {{ previous_outputs.l.result.writer }}
    responses: [done]
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "task")
	require.NoError(t, err)
	out, ok := res.Outputs.Get("after")
	require.True(t, ok)
	got := regexp.MustCompile(`'timestamp': '[^']*'`).ReplaceAllString(out.Prompt, "'timestamp': T")
	assert.Equal(t, "response,result,past_loops,loops_completed,final_score,threshold_met,confidence,internal_reasoning,"+
		"answer,best_iteration,best_score,count,input,iterations,stop_reason,usage,\n"+
		"input,result,loops_completed,final_score,threshold_met,past_loops,\n"+
		"['writer', 'judge']\n"+
		"{'zeta': 0.9, 'alpha': 1, 'loop_number': 1, 'score': 0.9, 'timestamp': T}\n"+
		"{'response': 'draft', 'confidence': '0.5', 'internal_reasoning': ''}", got, "typed values in past_loops: a deliberate difference (README)")
}

// Inside a pass, what the history helpers hand back prints in OrKa's order
// too, also in a template that never names input (whose wrapper view is then
// built for the helpers alone), and through filters.
func TestHistoryHelpersSeeOrKaOrderInsideAPass(t *testing.T) {
	src := `
orchestrator: {id: w, agents: [l, after]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.99
    past_loops_metadata: {zeta: "{{ score }}", alpha: "a"}
    internal_workflow:
      orchestrator: {id: i, agents: [judge]}
      agents:
        - id: judge
          type: scripted
          prompt: "{{ get_past_loops()[0] if has_past_loops() else '' }}|{{ get_past_loops() | string | truncate(40) }}"
          responses: ["SCORE: 0.5", "SCORE: 0.6"]
  - id: after
    type: scripted
    prompt: "{{ previous_outputs.l.result.judge.formatted_prompt }}"
    responses: [done]
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "task")
	require.NoError(t, err)
	out, ok := res.Outputs.Get("after")
	require.True(t, ok)
	got := regexp.MustCompile(`'timestamp': '[^']*'`).ReplaceAllString(out.Prompt, "'timestamp': T")
	assert.Equal(t, "{'zeta': 0.5, 'alpha': 'a', 'loop_number': 1, 'score': 0.5, 'timestamp': T}|[{'zeta': 0.5, 'alpha': 'a', 'loop_nu...", got)
}
