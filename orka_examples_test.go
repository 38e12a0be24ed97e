package cogloop_test

import (
	"context"
	"os"
	"path/filepath"
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
