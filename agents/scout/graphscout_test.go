package scout_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const scoutPool = `
  - {id: web_search, type: echo, prompt: "found {{ input }}", capabilities: [web_search]}
  - {id: analyzer, type: echo, prompt: "analysed", capabilities: [analysis]}
  - {id: response_builder, type: echo, prompt: "answer", is_terminal: true}
  - {id: notes, type: echo, prompt: "notes", capabilities: [answer_emit]}
  - {id: input_classifier, type: echo, prompt: "factual"}
  - {id: check, type: plan_validator_stub}
  - {id: inner_loop, type: loop}
`

func scoutWorkflow(params string) string {
	return `orchestrator: {id: w, agents: [gs, run]}
agents:
  - id: gs
    type: graph-scout
    prompt: "{{ input }}"
    params: {` + params + `}
  - {id: run, type: path_executor, path_source: gs}` + strings.Replace(scoutPool, "\n  - {id: check, type: plan_validator_stub}", "", 1)
}

// A golden transcript of a decision: graph-scout's mapping and what the
// executor ran from it.
func TestGraphScoutGolden(t *testing.T) {
	src := scoutWorkflow("k_beam: 3, max_depth: 3, commit_margin: 0.001, cost_budget_tokens: 2000, latency_budget_ms: 5000")
	w := load(t, strings.Replace(src, "  - {id: notes, type: echo, prompt: \"notes\", capabilities: [answer_emit]}\n", "", 1))
	out, _, err := run(t, w, "search the web for loop convergence")
	require.NoError(t, err)
	js, err := agenttest.OutputsJSON(out.Children)
	require.NoError(t, err)
	agenttest.Golden(t, "testdata/graphscout.golden.json", js, *update)

	gs := child(t, out, "gs")
	assert.Equal(t, "commit_path", gs.Fields["decision"])
	assert.Equal(t, []any{"web_search", "response_builder"}, child(t, out, "run").Fields["executed_path"])
}

// Same workflow and input, same decision; it never proposes itself, a
// control agent, an unknown id or an agent that already ran.
func TestGraphScoutCandidates(t *testing.T) {
	src := `orchestrator: {id: w, agents: [analyzer, gs]}
agents:
  - id: gs
    type: graph-scout
    params: {k_beam: 10, max_depth: 3, cost_budget_tokens: 100000, latency_budget_ms: 100000}` + scoutPool
	src = strings.Replace(src, "\n  - {id: check, type: plan_validator_stub}", "\n  - {id: plan_check, type: path_executor, path_source: gs}", 1)
	w := load(t, src)
	var first any
	for i := 0; i < 5; i++ {
		out, _, err := run(t, w, "summarise the notes")
		require.NoError(t, err)
		gs := child(t, out, "gs")
		if i == 0 {
			first = gs.Response
		} else {
			assert.Equal(t, first, gs.Response, "deterministic")
		}
		cands := gs.Fields["candidates"].([]any)
		require.NotEmpty(t, cands)
		assert.LessOrEqual(t, len(cands), 10)
		for _, c := range cands {
			for _, id := range c.(map[string]any)["path"].([]any) {
				assert.Contains(t, []string{"web_search", "response_builder", "notes"}, id,
					"never itself, input_classifier (a classifier), plan_check (a path executor), inner_loop (a loop) or analyzer (already ran)")
			}
		}
	}
}

// With every path over the budget it decides fallback, says why, and warns.
func TestGraphScoutBudgetFallback(t *testing.T) {
	w := load(t, scoutWorkflow("cost_budget_tokens: 10"))
	out, rec, err := run(t, w, "q")
	require.NoError(t, err)
	gs := child(t, out, "gs")
	assert.Equal(t, "fallback", gs.Fields["decision"])
	assert.Equal(t, "budget_exceeded", gs.Fields["status"])
	assert.Contains(t, gs.Fields["reasoning"], "every path is over the budget (cost_budget_tokens 10")
	var warned bool
	for _, e := range rec.Events() {
		if e.Kind == agents.EventWarning && e.Data["code"] == "graph_scout_fallback" {
			warned = true
		}
	}
	assert.True(t, warned)
	run := child(t, out, "run")
	require.True(t, run.Failed(), "the executor cannot run a fallback")
	assert.Contains(t, run.Err, `holds the decision "fallback"`)
}

// The defaults are OrKa's: k_beam 3, max_depth 2, commit_margin 0.15.
func TestGraphScoutDefaults(t *testing.T) {
	w := load(t, scoutWorkflow(""))
	out, _, err := run(t, w, "q")
	require.NoError(t, err)
	tr := child(t, out, "gs").Fields["trace"].(map[string]any)
	assert.Equal(t, 3, tr["k_beam"])
	assert.Equal(t, 2, tr["max_depth"])
	assert.Equal(t, 0.15, tr["commit_margin"])
}

func TestGraphScoutLoadErrors(t *testing.T) {
	cases := []struct{ params, want string }{
		{"k_beam: 0", `wf.yaml:6:14: agent "gs": params: k_beam must be between 1 and 100, not 0`},
		{"max_depth: deep", `max_depth must be a whole number, not "deep"`},
		{"commit_margin: 2", `commit_margin must be between 0 and 1, not 2`},
		{"kbeam: 3", `unknown key "kbeam" (did you mean "k_beam"?)`},
		{"score_weights: {llm: 0.5, heuristic: 0.5}", `unknown key "heuristic" (did you mean "heuristics"?)`},
		{"scoring_mode: fuzzy", `scoring_mode must be numeric or boolean, not "fuzzy"`},
	}
	for _, tc := range cases {
		t.Run(tc.params, func(t *testing.T) {
			assert.Contains(t, loadErr(t, scoutWorkflow(tc.params)), tc.want)
		})
	}
}

// OrKa's keys that change nothing here load with a warning that says so.
func TestGraphScoutAcceptedKeys(t *testing.T) {
	_, warns, err := parse(scoutWorkflow("llm_evaluation_enabled: true, evaluation_model: local_llm, provider: lm_studio, scoring_mode: boolean"))
	require.NoError(t, err)
	var all []string
	for _, p := range warns {
		all = append(all, p.Error())
	}
	joined := strings.Join(all, "\n")
	assert.Contains(t, joined, "llm_evaluation_enabled: cogloop's graph-scout does not ask a model yet")
	assert.Contains(t, joined, "evaluation_model is accepted for OrKa compatibility and ignored")
	assert.Contains(t, joined, "scoring_mode boolean is not implemented in cogloop")
}
