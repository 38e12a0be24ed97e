package cogloop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orkaExample is the path of one of OrKa's own workflow files, kept unchanged
// in testdata/orka (see its NOTICE).
func orkaExample(name string) string { return filepath.Join("testdata", "orka", name) }

func TestOrKaCognitiveLoopExampleRunsUnchanged(t *testing.T) {
	wf, err := cogloop.Load(orkaExample("cognitive_loop_scoring_example.yml"))
	require.NoError(t, err)
	var warned []string
	for _, w := range wf.Warnings {
		warned = append(warned, w.Msg)
	}
	assert.Contains(t, warned, `agent "cognitive_loop": fallback_score is accepted for OrKa compatibility and ignored`)
	assert.Contains(t, warned, `agent "cognitive_loop": timeout_score is accepted for OrKa compatibility and ignored`)

	data, err := os.ReadFile("testdata/orka_cognitive_replies.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse(data, "testdata/orka_cognitive_replies.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "Remote work and productivity",
		cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)

	loop, ok := res.Outputs.Get("cognitive_loop")
	require.True(t, ok)
	out := loop.Map()
	assert.Equal(t, 2, out["loops_completed"])
	assert.Equal(t, 0.72, out["final_score"])
	assert.Equal(t, true, out["threshold_met"])
	past := out["past_loops"].([]any)
	require.Len(t, past, 2)
	first := past[0].(map[string]any)
	assert.Equal(t, 1, first["loop_number"], "{{ get_loop_number() }} is a single expression and keeps its type")
	assert.Equal(t, 0.45, first["score"])
	assert.Contains(t, first["key_insights"], "that remote work raises output for focused tasks.")
	assert.Contains(t, first["improvements_needed"], "data on long-term career effects.")
	assert.Contains(t, first["mistakes_found"], "the effect on junior staff.")

	var analyzer2, final string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && e.Node == "cognitive_loop › iteration 2 › analyzer" {
			analyzer2 = e.Prompt
		}
		if e.Kind == event.AgentEnd && e.Agent == "final_processor" {
			final = e.Prompt
		}
	}
	assert.Contains(t, analyzer2, "TOPIC: Remote work and productivity")
	assert.Contains(t, analyzer2, "IMPROVEMENT REQUIRED - Previous attempts (1):")
	assert.Contains(t, analyzer2, "Loop 1 (Score: 0.45):")
	assert.Contains(t, final, "ORIGINAL TOPIC: Remote work and productivity")
	assert.Contains(t, final, "- Loops completed: 2")
	assert.Contains(t, final, "- Final score: 0.72")
	assert.Contains(t, final, "Loop 2 (0.72):")
	assert.Equal(t, "Thinking moved from output to careers; final confidence high.", res.Text())
}

// TestOrKaGraphScoutLoopsScoreTheValidator: in OrKa's three graph-scout +
// plan_validator loops, boolean scoring reads the validator's judgement, never
// graph-scout's decision (OrKa's previous_outputs of a graph-scout agent has no
// response). Expected values are what OrKa's code at 6037af3f gives on the same
// replies (the validator approves every loop_convergence criterion on its first
// pass): orka/nodes/loop/score_extractor.py _try_boolean_scoring skips the
// graph-scout result (no boolean_evaluations, no response) and scores the
// validator's boolean_evaluations with the loop's calculator (all true → 1.0),
// which meets score_threshold on pass 1.
func TestOrKaGraphScoutLoopsScoreTheValidator(t *testing.T) {
	for _, tc := range []struct{ file, loop, validator string }{
		{"plan_validator_boolean_scoring", "routing_loop", "path_validator"},
		{"plan_validator_with_graphscout", "routing_validation_loop", "path_validator_moderate"},
		{"graph_scout_validated_loop", "path_discovery_loop", "path_validator_moderate"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := orkaExample(tc.file + ".yml")
			_, res, _, err := offline(t, path, orkaExample(tc.file+".replies.yaml"), "What is the capital of France?")
			require.NoError(t, err)
			var loop *cogloop.LoopResult
			for _, l := range res.Loops() {
				if l.ID == tc.loop {
					loop = &l
				}
			}
			require.NotNil(t, loop, "loop %s", tc.loop)
			assert.Equal(t, 1, loop.LoopsCompleted, "OrKa: loops_completed 1")
			assert.Equal(t, 1.0, loop.FinalScore, "OrKa: final_score 1.0")
			assert.True(t, loop.ThresholdMet, "OrKa: threshold_met True")
			out, ok := res.Outputs.Get(tc.loop)
			require.True(t, ok)
			iters := out.Fields["iterations"].([]any)
			assert.Equal(t, tc.validator, iters[0].(map[string]any)["score_source"])
		})
	}
}

// TestOrKaLoopResponseResultGolden: the corpus files whose templates read a
// loop's previous_outputs.<loop>.response.result.<agent> (OrKa's loop entry,
// orchestrator/metrics.py build_previous_outputs: response is the loop's
// dict) render it. The golden files hold the prompts of the agents after the
// loop, as rendered on the scripted replies; -update rewrites them.
func TestOrKaLoopResponseResultGolden(t *testing.T) {
	for _, tc := range []struct {
		file   string
		agents []string
		want   []string // what OrKa's rendering must show (from the loop's result)
	}{
		{"plan_validator_boolean_scoring", []string{"execution_summary"},
			[]string{"- Target: ", "- Overall Score: 1.0", "- Assessment: APPROVED", "- Criteria Passed: 7"}},
		{"plan_validator_with_graphscout", []string{"execution_report"},
			// graph-scout's result in its own key order (graph_scout_agent.py)
			[]string{"## GraphScout's Final Path\n\n{'decision': 'commit_path', 'target': ['web_search', 'report_generator'], 'confidence': "}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := orkaExample(tc.file + ".yml")
			_, _, events, err := offline(t, path, orkaExample(tc.file+".replies.yaml"), "What is the capital of France?")
			require.NoError(t, err)
			var b strings.Builder
			for _, e := range events {
				if e.Kind == event.AgentEnd && slices.Contains(tc.agents, e.Node) {
					fmt.Fprintf(&b, "== %s\n%s\n", e.Node, goldenTimes.ReplaceAllString(e.Prompt, "<time>"))
				}
			}
			got := b.String()
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			agenttest.Golden(t, orkaExample(tc.file+".prompts.golden"), got, *updateGolden)
		})
	}
}

// An outer loop does not score an inner loop's answer text: OrKa's
// previous_outputs entry of a loop has the loop dict as response (no answer
// text), so the outer loop's score comes from the judge after it (0.92), not
// from the inner answer's "SCORE: 0.95".
func TestOuterLoopDoesNotScoreInnerAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested.yml")
	require.NoError(t, os.WriteFile(path, []byte(`orchestrator: {id: w, agents: [outer]}
agents:
  - id: outer
    type: loop
    max_loops: 2
    score_threshold: 0.93
    internal_workflow:
      orchestrator: {id: o, agents: [inner, judge]}
      agents:
        - id: inner
          type: loop
          max_loops: 1
          score_threshold: 0.5
          internal_workflow:
            orchestrator: {id: i, agents: [writer]}
            agents:
              - {id: writer, type: scripted, prompt: "write", responses: {cycle: ["draft. SCORE: 0.95"]}}
        - {id: judge, type: scripted, prompt: "judge {{ previous_outputs.inner.answer }}", responses: {cycle: ["fine. SCORE: 0.92"]}}
`), 0o600))
	wf, err := cogloop.Load(path)
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	var outer *cogloop.LoopResult
	for _, l := range res.Loops() {
		if l.ID == "outer" {
			outer = &l
		}
	}
	require.NotNil(t, outer)
	assert.Equal(t, 2, outer.LoopsCompleted, "0.92 < 0.93: both passes run (reading 0.95 would stop after one)")
	assert.Equal(t, 0.92, outer.FinalScore)
}
