package loopnode_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scoreLoop is a loop whose scorer replies, one per pass, come from replies.
func scoreLoop(keys, replies string) string {
	return "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n    max_loops: 3\n" + keys +
		"    internal_workflow:\n      orchestrator: {id: i, agents: [writer, scorer]}\n      agents:\n" +
		"        - {id: writer, type: scripted, responses: {cycle: [\"Draft. SCORE: 1.0\"]}}\n" +
		"        - {id: scorer, type: scripted, responses: " + replies + "}\n"
}

type warning struct{ code, node, msg string }

func runWarnings(t *testing.T, src string, opts ...cogloop.LoadOption) (map[string]any, []warning, error) {
	t.Helper()
	wf, err := cogloop.Parse([]byte(src), "wf.yaml", opts...)
	require.NoError(t, err)
	var ws []warning
	res, err := wf.Run(context.Background(), "x", cogloop.WithObserver(func(e event.Event) {
		if e.Kind == event.Warning {
			code, _ := e.Data["code"].(string)
			ws = append(ws, warning{code, e.Node, e.Message})
		}
	}))
	if res == nil {
		return nil, ws, err
	}
	o, _ := res.Outputs.Get("l")
	return o.Fields, ws, err
}

func TestScoreFromAndScale(t *testing.T) {
	// The writer's "SCORE: 1.0" would stop the loop at once (OrKa's order);
	// score_from reads the scorer only, score_scale: 10 reads 8 as 0.8.
	src := scoreLoop("    score_threshold: 0.85\n    score_from: [scorer]\n    score_scale: 10\n", `["SCORE: 6", "SCORE: 8", "SCORE: 9"]`)
	out, ws, err := runWarnings(t, src)
	require.NoError(t, err)
	assert.Equal(t, 3, out["loops_completed"])
	assert.InDelta(t, 0.9, out["final_score"], 1e-12)
	assert.Empty(t, ws, "an explicit scale rescales nothing")
	its := out["iterations"].([]any)
	assert.Equal(t, "scorer", its[0].(map[string]any)["score_source"])
}

func TestScoreWarnings(t *testing.T) {
	src := scoreLoop("    score_threshold: 0.85\n    score_from: [scorer]\n", `["no number here", "SCORE: 8", "SCORE: -0.5"]`)
	out, ws, err := runWarnings(t, src)
	require.NoError(t, err)
	require.Len(t, ws, 4)
	assert.Equal(t, "no_score", ws[0].code)
	assert.Equal(t, "l › iteration 1", ws[0].node)
	assert.Contains(t, ws[0].msg, `no score found in agents "scorer"`)
	assert.Contains(t, ws[0].msg, "15 patterns")
	assert.Contains(t, ws[0].msg, "only in scorer (score_from)")
	assert.Equal(t, "score_rescaled", ws[1].code)
	assert.Equal(t, "l › iteration 2", ws[1].node)
	assert.Contains(t, ws[1].msg, `agent "scorer" response: 8 read as 8 % = 0.08`)
	assert.Contains(t, ws[1].msg, "score_scale")
	assert.Equal(t, "negative_score", ws[2].code)
	assert.Contains(t, ws[2].msg, "-0.5 is negative")
	assert.Equal(t, "no_score", ws[3].code)

	its := out["iterations"].([]any)
	first := its[0].(map[string]any)
	assert.Equal(t, false, first["score_found"])
	assert.Len(t, first["warnings"], 1)
	assert.InDelta(t, 0.08, its[1].(map[string]any)["score"], 1e-12)
	assert.Equal(t, false, its[2].(map[string]any)["score_found"])
}

func TestScoreWarningsStrict(t *testing.T) {
	src := scoreLoop("    score_from: [scorer]\n", `["no number here"]`)
	out, ws, _ := runWarnings(t, src, cogloop.WithStrict())
	require.NotNil(t, out)
	assert.Equal(t, "error", out["stop_reason"], "under strict mode a warning stops the loop")
	assert.Contains(t, out["error"], "no score found")
	assert.Equal(t, 1, out["loops_completed"])
	assert.Len(t, ws, 1)
}

// A loop whose stop_when does not read the score warns nothing about it.
func TestNoScoreWarningOnlyWhenTheScoreMatters(t *testing.T) {
	src := scoreLoop("    stop_when: [{until: \"loop_number >= 2\"}]\n", `{cycle: [ok]}`)
	src = strings.Replace(src, `"Draft. SCORE: 1.0"`, "draft", 1)
	_, ws, err := runWarnings(t, src)
	require.NoError(t, err)
	assert.Empty(t, ws)
}

func TestScoreKeysLoad(t *testing.T) {
	tests := []struct {
		name string
		keys string
		want []string // in the error, or in the warnings when warn
		warn bool
	}{
		{"score_scale not allowed", "    score_scale: 5\n", []string{"wf.yaml:6:18", "score_scale must be 1, 10 or 100, not 5"}, false},
		{"score_from unknown agent", "    score_from: [scorer, judge]\n", []string{"wf.yaml:6:26", `score_from names "judge"`}, false},
		{"score_from empty", "    score_from: []\n", []string{"score_from lists no agent"}, false},
		{"regex_budget zero", "    regex_budget: 0\n", []string{"regex_budget must be above zero"}, false},
		{"regex_budget NaN", "    regex_budget: .nan\n", []string{"wf.yaml:6:5", "regex_budget"}, false},
		{"nested_path without path", "    score_extraction_config:\n      strategies: [{type: nested_path}]\n", []string{"strategies[0].path: nested_path strategy has no path"}, false},
		{"group-less pattern", "    score_extraction_pattern: \"SCORE: \\\\d+\"\n", []string{"wf.yaml:6:31", "has no capturing group", `"SCORE: "`}, true},
		{"nested quantifier", "    cognitive_extraction:\n      extract_patterns:\n        insights: [\"((\\\\w+\\\\s?)+):\"]\n", []string{"wf.yaml:8:20", "insights[0]", "at character 2"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wf, err := cogloop.Parse([]byte(scoreLoop(tc.keys, "[x]")), "wf.yaml")
			if tc.warn {
				require.NoError(t, err)
				require.NotEmpty(t, wf.Warnings)
				for _, w := range tc.want {
					assert.Contains(t, wf.Warnings[0].Error(), w)
				}
				_, err = cogloop.Parse([]byte(scoreLoop(tc.keys, "[x]")), "wf.yaml", cogloop.WithStrict())
				assert.Error(t, err, "strict makes the warning an error")
				return
			}
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestPathStrategiesInALoop(t *testing.T) {
	keys := `    score_threshold: 0.8
    score_extraction_config:
      strategies:
        - {type: nested_path, path: "result.AGREEMENT_SCORE"}
        - {type: json, json_path: "$.safety_score", agents: [scorer]}
`
	src := scoreLoop(keys, `["{\"safety_score\": 0.5}", "{\"safety_score\": 0.85}"]`)
	out, ws, err := runWarnings(t, src)
	require.NoError(t, err)
	assert.Empty(t, ws)
	assert.Equal(t, 2, out["loops_completed"])
	assert.InDelta(t, 0.85, out["final_score"], 1e-12)
}

func TestScoringContextFromCustomWeights(t *testing.T) {
	graphscout := `    scoring:
      preset: moderate
      custom_weights:
        safety.validates_inputs: 0.5
        completeness.has_all_required_steps: 0.5
`
	wf, err := cogloop.Parse([]byte(scoreLoop(graphscout, "[x]")), "wf.yaml")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Contains(t, wf.Warnings[0].Error(), "using context graphscout")
	assert.Contains(t, wf.Warnings[0].Error(), "wf.yaml:8:7")

	convergence := `    scoring:
      preset: moderate
      custom_weights:
        improvement.better_than_previous: 0.5
        convergence.within_tolerance: 0.5
`
	wf, err = cogloop.Parse([]byte(scoreLoop(convergence, "[x]")), "wf.yaml")
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings, "weights that fit loop_convergence keep it, silently")

	nowhere := "    scoring:\n      preset: moderate\n      custom_weights: {nothing.known: 1}\n"
	_, err = cogloop.Parse([]byte(scoreLoop(nowhere, "[x]")), "wf.yaml")
	assert.ErrorContains(t, err, "nothing.known")
}
