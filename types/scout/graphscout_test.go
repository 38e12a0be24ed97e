package scout_test

import (
	"context"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
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
	w := loadWorkflow(t, strings.Replace(src, "  - {id: notes, type: echo, prompt: \"notes\", capabilities: [answer_emit]}\n", "", 1))
	out, _, err := run(t, w, "search the web for loop convergence")
	require.NoError(t, err)
	js, err := agenttest.OutputsJSON(out.Children)
	require.NoError(t, err)
	agenttest.Golden(t, "testdata/graphscout.golden.json", js, *update)

	gs := agenttest.Output(t, out.Children, "gs")
	assert.Equal(t, "commit_path", gs.Fields["decision"])
	assert.Equal(t, []any{"web_search", "response_builder"}, agenttest.Output(t, out.Children, "run").Fields["executed_path"])
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
	w := loadWorkflow(t, src)
	var first any
	for i := 0; i < 5; i++ {
		out, _, err := run(t, w, "summarise the notes")
		require.NoError(t, err)
		gs := agenttest.Output(t, out.Children, "gs")
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
	w := loadWorkflow(t, scoutWorkflow("cost_budget_tokens: 10"))
	out, rec, err := run(t, w, "q")
	require.NoError(t, err)
	gs := agenttest.Output(t, out.Children, "gs")
	assert.Equal(t, "fallback", gs.Fields["decision"])
	assert.Equal(t, "budget_exceeded", gs.Fields["status"])
	assert.Contains(t, gs.Fields["reasoning"], "every path is over the budget (cost_budget_tokens 10")
	var warned bool
	for _, e := range rec.Events() {
		if e.Kind == event.Warning && e.Data["code"] == "graph_scout_fallback" {
			warned = true
		}
	}
	assert.True(t, warned)
	run := agenttest.Output(t, out.Children, "run")
	require.True(t, run.Failed(), "the executor cannot run a fallback")
	assert.Contains(t, run.Err, `holds the decision "fallback"`)
}

// The defaults are OrKa's: k_beam 3, max_depth 2, commit_margin 0.15.
func TestGraphScoutDefaults(t *testing.T) {
	w := loadWorkflow(t, scoutWorkflow(""))
	out, _, err := run(t, w, "q")
	require.NoError(t, err)
	tr := agenttest.Output(t, out.Children, "gs").Fields["trace"].(map[string]any)
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
	_, warns, err := parse(scoutWorkflow("validation_model: local_llm, use_priors: true, scoring_mode: boolean, llm_evaluation_enabled: true"))
	require.NoError(t, err)
	var all []string
	for _, p := range warns {
		all = append(all, p.Error())
	}
	joined := strings.Join(all, "\n")
	assert.Contains(t, joined, "validation_model is accepted for OrKa compatibility and ignored")
	assert.Contains(t, joined, "use_priors is accepted for OrKa compatibility and ignored")
	assert.Contains(t, joined, "scoring_mode boolean is not implemented in cogloop")
	assert.Contains(t, joined, "llm_evaluation_enabled without provider and evaluation_model_name: only a run's scripted models (--script) can answer")
}

// With llm_evaluation_enabled a model rates the top candidates, through the
// run's models (so --script answers it by graph-scout's id); its rating is
// the llm component. A reply without ratings falls back to the heuristics
// with a warning, or fails with fallback_to_heuristics: false.
func TestGraphScoutLLMEvaluation(t *testing.T) {
	params := "k_beam: 3, max_depth: 2, commit_margin: 0.05, require_terminal: false, cost_budget_tokens: 5000, latency_budget_ms: 5000, llm_evaluation_enabled: true"
	runWith := func(t *testing.T, params, reply string) (agents.Output, *agenttest.Recorder) {
		w := loadWorkflow(t, scoutWorkflow(params))
		script, err := scripted.Parse([]byte("gs: ['"+reply+"']\n"), "script.yaml")
		require.NoError(t, err)
		rec := &agenttest.Recorder{}
		out, err := w.Run(context.Background(), agents.Input{Value: "search the web", Run: &agents.Run{ID: "r", Observe: rec.Observe, Models: script}})
		require.NoError(t, err)
		return out, rec
	}
	t.Run("ratings decide", func(t *testing.T) {
		out, _ := runWith(t, params, `{"1": 0.1, "2": 0.2, "3": 1.0}`)
		gs := agenttest.Output(t, out.Children, "gs")
		assert.Equal(t, "llm", gs.Fields["trace"].(map[string]any)["scored_by"])
		cands := gs.Fields["candidates"].([]any)
		best := cands[0].(map[string]any)
		assert.Equal(t, 1.0, best["score_components"].(map[string]any)["llm"])
		assert.Equal(t, "commit_path", gs.Fields["decision"], gs.Fields["reasoning"])
		assert.Equal(t, best["path"], toAny(gs.Fields["target"]))
		assert.Contains(t, gs.Prompt, "search the web")
	})
	t.Run("no ratings fall back with a warning", func(t *testing.T) {
		out, rec := runWith(t, params, `I like them all`)
		gs := agenttest.Output(t, out.Children, "gs")
		require.False(t, gs.Failed())
		assert.Equal(t, "heuristics", gs.Fields["trace"].(map[string]any)["scored_by"])
		var warned bool
		for _, e := range rec.Events() {
			if e.Kind == event.Warning && e.Data["code"] == "graph_scout_llm_fallback" {
				warned = true
				assert.Contains(t, e.Message, "holds no JSON object of ratings")
			}
		}
		assert.True(t, warned)
	})
	t.Run("without fallback the agent fails", func(t *testing.T) {
		out, _ := runWith(t, params+", fallback_to_heuristics: false", `I like them all`)
		gs := agenttest.Output(t, out.Children, "gs")
		require.True(t, gs.Failed())
		assert.Contains(t, gs.Err, "evaluate candidates: the evaluation reply holds no JSON object of ratings")
	})
}

func toAny(v any) any {
	if ss, ok := v.([]string); ok {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	return v
}
