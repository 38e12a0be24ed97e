package loopnode_test

import (
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoopConfigErrors(t *testing.T) {
	head := "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n"
	inner := "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: [x]}]\n"
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"max_loops out of range", head + "    max_loops: 0\n" + inner, []string{"wf.yaml:5:5", "max_loops must be between 1 and 1000, not 0"}},
		{"max_loops too big", head + "    max_loops: 5000\n" + inner, []string{"wf.yaml:5:5", "between 1 and 1000"}},
		{"threshold not a number", head + "    score_threshold: high\n" + inner, []string{"wf.yaml:5:5", `score_threshold must be a number, not "high"`}},
		{"bad score pattern", head + "    score_extraction_pattern: \"SCORE: ([0-9\"\n" + inner, []string{"wf.yaml:5:31", "score_extraction_pattern", "invalid pattern"}},
		{"bad strategy pattern", head + "    score_extraction_config:\n      strategies:\n        - type: pattern\n          patterns: [\"ok: (\\\\d+)\", \"(unclosed\"]\n" + inner, []string{"wf.yaml:8:36", "strategies[0].patterns[1]"}},
		{"bad cognitive pattern", head + "    cognitive_extraction:\n      extract_patterns:\n        insights: [\"(?<\"]\n" + inner, []string{"wf.yaml:7:20", "insights[0]"}},
		{"unknown strategy type", head + "    score_extraction_config:\n      strategies: [{type: magic}]\n" + inner, []string{"wf.yaml:6:21", `unknown strategy type "magic"`}},
		{"missing internal workflow", head + "    max_loops: 2\n", []string{"wf.yaml:3:5", "missing internal_workflow"}},
		{"unknown key", head + "    max_loop: 3\n" + inner, []string{"wf.yaml:5:5", `unknown key "max_loop"`, `did you mean "max_loops"`}},
		{"inner problem has its position", head + "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: nope}]\n", []string{"wf.yaml:7:30", `unknown type "nope"`}},
		{"metadata template syntax", head + "    past_loops_metadata:\n      n: \"{{ loop_number \"\n" + inner, []string{"wf.yaml:6:", "past_loops_metadata"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cogloop.Parse([]byte(tc.src), "wf.yaml")
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestOrKaIgnoredLoopKeysWarn(t *testing.T) {
	src := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    fallback_score: 0.2
    timeout_score: 0.1
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents: [{id: a, type: scripted, responses: [x]}]
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 2)
	assert.Contains(t, wf.Warnings[0].Error(), "wf.yaml:5:5")
	assert.Contains(t, wf.Warnings[0].Error(), "fallback_score is accepted for OrKa compatibility and ignored")
}
