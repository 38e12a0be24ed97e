package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An extract_patterns category beyond insights, improvements and mistakes is
// extracted like them and stored in past_loops under its own name (OrKa drops
// it).
func TestExtraExtractCategoriesReachPastLoops(t *testing.T) {
	src := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["INSIGHT: (.+?)(?:\\n|$)"]
        safety_concerns: ["RISK: (.+?)(?:\\n|$)"]
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - id: a
          type: scripted
          responses:
            - "INSIGHT: the draft reads well enough\nRISK: dosage advice lacks a source\nSCORE: 0.5"
            - "INSIGHT: sources now cover every claim\nSCORE: 0.95"
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	res, err := wf.Run(context.Background(), "task")
	require.NoError(t, err)
	out, ok := res.Outputs.Get("l")
	require.True(t, ok)
	past := out.Map()["past_loops"].([]any)
	require.Len(t, past, 2)
	first, second := past[0].(map[string]any), past[1].(map[string]any)
	assert.Equal(t, "dosage advice lacks a source", first["safety_concerns"])
	assert.Equal(t, "the draft reads well enough", first["insights"])
	assert.Equal(t, "", second["safety_concerns"])
}

func TestExtraExtractCategoryErrors(t *testing.T) {
	head := "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n    cognitive_extraction:\n      extract_patterns:\n"
	inner := "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: [x]}]\n"
	for _, tc := range []struct{ name, body, want string }{
		{"name of a past_loops field", "        score: [\"S: (.+)\"]\n", `wf.yaml:7:9: agent "l": cognitive_extraction: extract_patterns: category "score" would overwrite the past_loops field of that name`},
		{"bad pattern", "        synthesis: [\"(?<\"]\n", "wf.yaml:7:21: agent \"l\": cognitive_extraction.extract_patterns.synthesis[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cogloop.Parse([]byte(head+tc.body+inner), "wf.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
