package validate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/scoring"
	"github.com/cogloop/cogloop/types/validate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWF parses src, runs it on input with the scripted replies, and returns the
// result and the events.
func runWF(t *testing.T, src, script string, input any) (*cogloop.Result, *agenttest.Recorder) {
	t.Helper()
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	s, err := scripted.Parse([]byte(script), "replies.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), input, cogloop.WithModels(s), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	return res, rec
}

func iterationScores(t *testing.T, loop map[string]any) []float64 {
	t.Helper()
	var out []float64
	for _, it := range loop["iterations"].([]any) {
		out = append(out, it.(map[string]any)["score"].(float64))
	}
	return out
}

func promptsOf(rec *agenttest.Recorder, node string) []string {
	var out []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && strings.HasSuffix(e.Node, node) {
			out = append(out, e.Prompt)
		}
	}
	return out
}

func warningsOf(rec *agenttest.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if e.Kind == event.Warning {
			out = append(out, e.Message)
		}
	}
	return out
}

// loopWF is a loop whose internal workflow is a writer and a loop_validator;
// scoring and extra are inserted into the loop and the validator.
func loopWF(scoring, validatorExtra, moreAgents, queue string) string {
	return `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.8
` + scoring + `
    internal_workflow:
      orchestrator: {id: inner, agents: [` + queue + `]}
      agents:
        - id: writer
          type: local_llm
          provider: ollama
          model: llama3
          prompt: "Write about {{ get_input() }}"
        - id: judge
          type: loop_validator
          llm_model: llama3
          provider: ollama
          evaluation_target: writer
` + validatorExtra + moreAgents
}

const allFalse = `'{"IMPROVEMENT": {"better_than_previous": false, "significant_delta": false, "approaching_target": false}, "STABILITY": {"not_degrading": false, "consistent_direction": false}, "CONVERGENCE": {"delta_decreasing": false, "within_tolerance": false}}'`

func TestLoopStopsWhenTheWeightedScoreIsEnough(t *testing.T) {
	src := loopWF("    scoring: {preset: moderate}\n", "", "", "writer, judge")
	script := `writer: [draft one, draft two, draft three, draft four]
judge:
  - ` + allFalse + `
  - "better_than_previous: true\nnot_degrading: true\nsignificant_delta: false"
  - '{"improvement": {"better_than_previous": true, "significant_delta": true, "approaching_target": true}, "stability": {"not_degrading": true, "consistent_direction": true}, "convergence": {"delta_decreasing": true, "within_tolerance": false}}'
  - "never asked"
`
	res, rec := runWF(t, src, script, "loops")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	assert.Equal(t, 3, loop["loops_completed"])
	assert.Equal(t, []float64{0, 0.43, 0.92}, iterationScores(t, loop), "moderate loop_convergence weights: 0.25+0.18, then all but within_tolerance (0.08)")
	assert.Equal(t, 0.92, loop["final_score"])
	assert.Equal(t, true, loop["threshold_met"])
	assert.Equal(t, "threshold", loop["stop_reason"])
	for _, it := range loop["iterations"].([]any)[1:] {
		assert.Equal(t, "judge", it.(map[string]any)["score_source"])
	}

	judge := loop["result"].(map[string]any)["judge"].(map[string]any)
	assert.InDelta(t, 6.0/7, judge["validation_score"], 1e-12, "the validator's own score is unweighted")
	assert.Equal(t, "APPROVED", judge["overall_assessment"])
	assert.Equal(t, []any{"convergence.within_tolerance"}, judge["failed_criteria"])
	assert.Len(t, judge["passed_criteria"], 6)
	assert.Equal(t, map[string]any{"delta_decreasing": true, "within_tolerance": false},
		judge["boolean_evaluations"].(map[string]any)["convergence"])

	prompts := promptsOf(rec, "judge")
	require.Len(t, prompts, 3)
	assert.Contains(t, prompts[0], "Content to evaluate:\ndraft one\n")
	assert.Contains(t, prompts[0], "MODERATE loop_convergence criteria")
	assert.Contains(t, prompts[0], "This is iteration 1 of a loop. There are no earlier iterations.")
	assert.Contains(t, prompts[2], "This is iteration 3 of a loop. Earlier iterations, oldest first:\n- {")
	assert.Contains(t, prompts[2], `"score":0.43`)
	assert.NotContains(t, prompts[2], "draft two", "only the target's current output is evaluated")
}

// TestCustomWeightsInTheLoop uses the weights of OrKa's simple_boolean_loop.yml.
func TestCustomWeightsInTheLoop(t *testing.T) {
	src := loopWF(`    scoring:
      preset: lenient
      context: loop_convergence
      custom_weights:
        improvement.better_than_previous: 0.50
        convergence.within_tolerance: 0.30
        stability.consistent_direction: 0.20
`, "", "", "writer, judge")
	script := `writer: {cycle: [draft]}
judge:
  - '{"improvement": {"better_than_previous": true}, "convergence": {"within_tolerance": true}, "stability": {}}'
  - '{"improvement": {"better_than_previous": true, "significant_delta": true, "approaching_target": true}, "stability": {"not_degrading": true, "consistent_direction": true}, "convergence": {"within_tolerance": true}}'
`
	res, _ := runWF(t, src, script, "x")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	// Sum of weights after replacing three: 0.5+0.3+0.2 + 0.12+0.08+0.20+0.10 = 1.5.
	assert.Equal(t, []float64{0.5333, 0.9333}, iterationScores(t, loop))
	assert.Equal(t, 2, loop["loops_completed"])
}

func TestValidatorWithoutLoopPresetIsIgnoredByTheLoop(t *testing.T) {
	scorer := `        - id: scorer
          type: scripted
          responses: ["SCORE: 0.3", "SCORE: 0.9"]
`
	allTrue := `'{"improvement": {"better_than_previous": true, "significant_delta": true, "approaching_target": true}, "stability": {"not_degrading": true, "consistent_direction": true}, "convergence": {"delta_decreasing": true, "within_tolerance": true}}'`
	script := "writer: {cycle: [draft]}\njudge: {cycle: [" + allTrue + "]}\n"

	t.Run("no scoring block", func(t *testing.T) {
		res, _ := runWF(t, loopWF("", "", scorer, "writer, judge, scorer"), script, "x")
		loop := agenttest.Output(t, res.Outputs, "l").Map()
		assert.Equal(t, []float64{0.3, 0.9}, iterationScores(t, loop), "the text scorer drives the loop, not the all-true validator")
		assert.Equal(t, "scorer", loop["iterations"].([]any)[0].(map[string]any)["score_source"])
		judge := loop["result"].(map[string]any)["judge"].(map[string]any)
		assert.Equal(t, 1.0, judge["validation_score"])
	})
	t.Run("criteria of another context are under the 50 % rule", func(t *testing.T) {
		res, _ := runWF(t, loopWF("    scoring: {preset: moderate, context: quality}\n", "", scorer, "writer, judge, scorer"), script, "x")
		loop := agenttest.Output(t, res.Outputs, "l").Map()
		assert.Equal(t, []float64{0.3, 0.9}, iterationScores(t, loop))
	})
}

func TestValidatorFailureIsTheErrorResult(t *testing.T) {
	after := `        - id: after
          type: scripted
          responses: ["SCORE: 0.1"]
`
	src := loopWF("    scoring: {preset: moderate}\n", "", after, "writer, judge, after")
	src = strings.Replace(src, "max_loops: 5", "max_loops: 1", 1)
	res, rec := runWF(t, src, "writer: [draft]\njudge: [{error: \"model is down\"}]\n", "x")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	judge := loop["result"].(map[string]any)["judge"].(map[string]any)
	assert.Equal(t, "ERROR", judge["overall_assessment"])
	assert.Equal(t, 0.0, judge["validation_score"])
	assert.Contains(t, judge["error"], "model is down")
	assert.Empty(t, judge["passed_criteria"])
	assert.Len(t, judge["failed_criteria"], 7)
	assert.NotContains(t, judge, "status", "an ERROR result is a result, not an error record")
	assert.Contains(t, loop["result"], "after", "later agents still run")
	assert.Equal(t, []float64{0}, iterationScores(t, loop), "all-false evaluations weigh 0 and take precedence over text scores")
	assert.Contains(t, strings.Join(warningsOf(rec), "\n"), "validation failed, every criterion counts as failed")
}

func TestGarbageAnswerIsAllFalse(t *testing.T) {
	src := loopWF("    scoring: {preset: strict}\n", "          scoring_preset: strict\n", "", "writer, judge")
	src = strings.Replace(src, "max_loops: 5", "max_loops: 1", 1)
	res, rec := runWF(t, src, "writer: [draft]\njudge: [\"I'd rather not say. }{\"]\n", "x")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	judge := loop["result"].(map[string]any)["judge"].(map[string]any)
	assert.Equal(t, 0.0, judge["validation_score"])
	assert.Equal(t, "REJECTED", judge["overall_assessment"])
	assert.NotContains(t, judge, "error")
	assert.Equal(t, []float64{0}, iterationScores(t, loop))
	assert.Contains(t, strings.Join(warningsOf(rec), "\n"), "holds no verdicts")
	assert.Contains(t, promptsOf(rec, "judge")[0], "STRICT loop_convergence criteria. Judge STRICTLY.", "the strict preset works")
}

// allTrueFor answers true to every criterion of p, in upper-case categories.
func allTrueFor(p *scoring.Preset) string {
	m := map[string]map[string]bool{}
	for _, c := range p.Criteria {
		d := strings.ToUpper(c.Dimension())
		if m[d] == nil {
			m[d] = map[string]bool{}
		}
		m[d][c.Name()] = true
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestEveryPresetAndMode(t *testing.T) {
	cat := scoring.Embedded()
	// approved runs validator v (agent's YAML keys) on a reply that meets
	// every criterion of p: an approved score of 1.
	approved := func(t *testing.T, p *scoring.Preset, agent string) (map[string]any, *agenttest.Recorder) {
		src := "orchestrator: {id: w, agents: [v]}\nagents:\n  - {id: v, " + agent + "}\n"
		script, _ := json.Marshal(map[string][]string{"v": {allTrueFor(p)}})
		res, rec := runWF(t, src, string(script), "the task")
		out := agenttest.Output(t, res.Outputs, "v").Map()
		assert.Equal(t, 1.0, out["validation_score"])
		assert.Equal(t, "APPROVED", out["overall_assessment"])
		return out, rec
	}
	modes := map[string]string{"loop": "loop_convergence", "path": "graphscout", "quality": "quality", "validation": "validation"}
	for mode, context := range modes {
		for _, level := range cat.Levels(context) {
			p, err := cat.Preset(context, level)
			require.NoError(t, err)
			t.Run("loop_validator/"+mode+"/"+level, func(t *testing.T) {
				out, rec := approved(t, p, fmt.Sprintf("type: loop_validator, llm_model: m, provider: ollama, mode: %s, scoring_preset: %s", mode, level))
				assert.Len(t, out["passed_criteria"], len(p.Criteria))
				pr := promptsOf(rec, "v")[0]
				assert.Contains(t, pr, strings.ToUpper(level)+" "+context+" criteria. "+p.Instruction)
				for _, c := range p.Criteria {
					assert.Contains(t, pr, "- "+c.Name()+": "+c.Description)
					assert.Contains(t, pr, strings.ToUpper(c.Dimension())+":\n")
				}
				assert.Contains(t, pr, `"input": "the task"`, "without a target the whole input is evaluated")
			})
			t.Run("plan_validator/"+context+"/"+level, func(t *testing.T) {
				out, _ := approved(t, p, fmt.Sprintf("type: plan_validator, model: m, provider: ollama, scoring_context: %s, scoring_preset: %s", context, level))
				assert.Equal(t, level, out["scoring_preset"])
				assert.Equal(t, context, out["scoring_context"])
			})
		}
	}
}

func TestScoringContextSelectsTheMode(t *testing.T) {
	tests := []struct{ sc, mode, want string }{
		{"graphscout", "loop", "graphscout"},
		{"path_eval", "loop", "graphscout"},
		{"loop_convergence", "path", "loop_convergence"},
		{"converge", "path", "loop_convergence"},
		{"quality", "loop", "loop_convergence"},
		{"quality", "path", "graphscout"},
	}
	for _, tc := range tests {
		t.Run(tc.sc+"/"+tc.mode, func(t *testing.T) {
			src := fmt.Sprintf("orchestrator: {id: w, agents: [v]}\nagents:\n  - {id: v, type: loop_validator, llm_model: m, provider: ollama, mode: %s, scoring_context: %s}\n", tc.mode, tc.sc)
			_, rec := runWF(t, src, "v: [nothing]", "x")
			assert.Contains(t, promptsOf(rec, "v")[0], "MODERATE "+tc.want+" criteria")
		})
	}
}

func TestCustomPrompt(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a, v]}
agents:
  - {id: a, type: scripted, responses: ["the answer"]}
  - id: v
    type: loop_validator
    llm_model: m
    provider: ollama
    evaluation_target: a
    custom_prompt: 'Judge {content}. Reply as {"IMPROVEMENT": {...}}. Again: {content}'
`
	res, rec := runWF(t, src, "v: ['better_than_previous: true']", "x")
	assert.Equal(t, `Judge the answer. Reply as {"IMPROVEMENT": {...}}. Again: the answer`, promptsOf(rec, "v")[0])
	assert.InDelta(t, 1.0/7, agenttest.Output(t, res.Outputs, "v").Map()["validation_score"], 1e-12)
}

func TestPlanValidator(t *testing.T) {
	src := `orchestrator: {id: w, agents: [planner, other, check]}
agents:
  - {id: planner, type: scripted, responses: ["1. search 2. summarise"]}
  - {id: other, type: scripted, responses: ["unrelated"]}
  - id: check
    type: plan_validator
    llm_model: m
    llm_provider: ollama
    llm_url: http://localhost:11434
    evaluation_target: planner
    custom_weights: {completeness.has_all_required_steps: 0.5}
`
	answer := `Evaluation:
{"COMPLETENESS": {"has_all_required_steps": true, "addresses_all_query_aspects": true, "handles_edge_cases": false, "includes_fallback_path": false},
 "EFFICIENCY": {"minimizes_redundant_calls": true, "uses_appropriate_agents": true, "optimizes_cost": true, "optimizes_latency": true},
 "SAFETY": {"validates_inputs": false, "handles_errors_gracefully": false, "has_timeout_protection": false, "avoids_risky_combinations": true},
 "COHERENCE": {"logical_agent_sequence": true, "proper_data_flow": true, "no_conflicting_actions": true},
 "rationale": "No fallback and no error handling."}`
	script, _ := json.Marshal(map[string][]string{"check": {answer}})
	res, rec := runWF(t, src, string(script), "find papers")
	out := agenttest.Output(t, res.Outputs, "check").Map()

	// moderate graphscout with has_all_required_steps 0.18 → 0.5: the sum is 1.32.
	passed := 0.5 + 0.12 + 0.10 + 0.10 + 0.05 + 0.05 + 0.02 + 0.03 + 0.01 + 0.01
	assert.InDelta(t, passed/1.32, out["validation_score"], 0.0001)
	assert.Equal(t, "NEEDS_IMPROVEMENT", out["overall_assessment"])
	assert.Equal(t, "No fallback and no error handling.", out["rationale"])
	assert.Equal(t, "moderate", out["scoring_preset"])
	assert.Len(t, out["failed_criteria"], 5)
	dims := out["dimension_scores"].(map[string]any)
	eff := dims["efficiency"].(map[string]any)
	assert.Equal(t, 100.0, eff["percentage"])
	assert.Equal(t, 4, eff["passed"])
	bd := out["breakdown"].(map[string]any)["safety.validates_inputs"].(map[string]any)
	assert.Equal(t, false, bd["passed"])
	assert.InDelta(t, 0.08/1.32, bd["weight"], 1e-12)
	assert.Equal(t, map[string]any{"validates_inputs": false, "handles_errors_gracefully": false, "has_timeout_protection": false, "avoids_risky_combinations": true},
		out["boolean_evaluations"].(map[string]any)["safety"])

	pr := promptsOf(rec, "check")[0]
	assert.Contains(t, pr, "Request:\nfind papers\n\nProposed plan:\n1. search 2. summarise\n")
	assert.Contains(t, pr, `"rationale": "one or two sentences`)
	assert.NotContains(t, pr, "unrelated")
}

func TestPlanValidatorFindsThePlan(t *testing.T) {
	tests := []struct {
		name, agents, queue, want string
	}{
		{"graph_scout id", `  - {id: graph_scout, type: scripted, responses: ["scout plan"]}
  - {id: later, type: scripted, responses: ["later text"]}
`, "graph_scout, later", "scout plan"},
		{"an output with a path", `  - {id: router, type: const, response: {decision_type: commit, path: [a, b]}}
  - {id: later, type: scripted, responses: ["later text"]}
`, "router, later", `"decision_type": "commit"`},
		{"the last output", `  - {id: first, type: scripted, responses: ["first text"]}
  - {id: later, type: scripted, responses: ["later text"]}
`, "first, later", "later text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "orchestrator: {id: w, agents: [" + tc.queue + ", check]}\nagents:\n" + tc.agents +
				"  - {id: check, type: plan_validator, model: m, provider: ollama}\n"
			reg := cogloop.NewRegistry()
			agenttest.Register(reg)
			wf, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(reg))
			require.NoError(t, err)
			script, err := scripted.Parse([]byte("check: [nothing]"), "r.yaml")
			require.NoError(t, err)
			rec := &agenttest.Recorder{}
			_, err = wf.Run(context.Background(), "x", cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
			require.NoError(t, err)
			pr := promptsOf(rec, "check")[0]
			plan := pr[strings.Index(pr, "Proposed plan:"):strings.Index(pr, "For each criterion")]
			assert.Contains(t, plan, tc.want)
		})
	}
}

func TestPlanValidatorFollowsTheIterationsScoringContext(t *testing.T) {
	reg := agents.NewRegistry()
	validate.Register(reg)
	a := build(t, reg, "id: check\ntype: plan_validator\nmodel: m\nprovider: ollama\nscoring_preset: strict\ncustom_weights: {safety.validates_inputs: 0.9}\n", nil)
	script, err := scripted.Parse([]byte(`check: {cycle: ['{"improvement": {"better_than_previous": true}, "stability": {"not_degrading": true}}']}`), "r.yaml")
	require.NoError(t, err)
	run := &agents.Run{Models: script}

	out, err := a.Run(context.Background(), agents.Input{Value: map[string]any{"input": "task", "scoring_context": "loop_convergence"}, Run: run})
	require.NoError(t, err)
	assert.Equal(t, "loop_convergence", out.Fields["scoring_context"])
	assert.Equal(t, 0.45, out.Fields["validation_score"], "strict loop_convergence: 0.30 + 0.15, no custom weights")
	assert.Contains(t, out.Prompt, "STRICT loop_convergence criteria")

	out, err = a.Run(context.Background(), agents.Input{Value: map[string]any{"input": "task", "scoring_context": "nonsense"}, Run: run})
	require.NoError(t, err)
	assert.Equal(t, "graphscout", out.Fields["scoring_context"], "an unknown context keeps the configured one")
}

func TestPlanValidatorInsideALoop(t *testing.T) {
	src := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
    scoring: {preset: strict, context: path}
    internal_workflow:
      orchestrator: {id: inner, agents: [path_proposer, check]}
      agents:
        - {id: path_proposer, type: scripted, responses: [plan A, plan B]}
        - {id: check, type: plan_validator, model: m, provider: ollama, scoring_preset: lenient}
`
	good := `{"COMPLETENESS": {"has_all_required_steps": true, "addresses_all_query_aspects": true, "handles_edge_cases": true, "includes_fallback_path": true},
 "EFFICIENCY": {"minimizes_redundant_calls": true, "uses_appropriate_agents": true, "optimizes_cost": true, "optimizes_latency": true},
 "SAFETY": {"validates_inputs": true, "handles_errors_gracefully": true, "has_timeout_protection": false, "avoids_risky_combinations": false},
 "COHERENCE": {"logical_agent_sequence": true, "proper_data_flow": true, "no_conflicting_actions": true}}`
	script, _ := json.Marshal(map[string][]string{"check": {`{"COMPLETENESS": {"has_all_required_steps": true}, "EFFICIENCY": {}}`, good}})
	res, _ := runWF(t, src, string(script), "x")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	// The loop weighs with its own preset (strict graphscout: 1 - 0.03 - 0.02 = 0.95),
	// not the validator's lenient one.
	assert.Equal(t, []float64{0.2, 0.95}, iterationScores(t, loop))
	check := loop["result"].(map[string]any)["check"].(map[string]any)
	assert.Equal(t, 0.94, check["validation_score"], "lenient: 1 - 0.04 - 0.02")
}

// build runs a factory on one definition, outside any workflow.
func build(t *testing.T, reg *agents.Registry, src string, w *agenttest.Workspace) agents.Agent {
	t.Helper()
	a, probs := agenttest.Build(t, reg, src, w)
	require.NoError(t, probs.Err())
	return a
}

func TestEvaluationTargetThatNamesNoAgentIsAWarning(t *testing.T) {
	reg := agents.NewRegistry()
	validate.Register(reg)
	for _, typ := range []string{"loop_validator", "plan_validator"} {
		src := "type: " + typ + "\nid: v\nllm_model: m\nprovider: ollama\nevaluation_target: writr\n"
		a, probs := agenttest.Build(t, reg, src, &agenttest.Workspace{Types: map[string]string{"writer": "llm"}})
		require.NoError(t, probs.Err())
		require.NotNil(t, a)
		require.Len(t, probs.Warnings(), 1, typ)
		assert.Equal(t, `wf.yaml:5:1: agent "x": evaluation_target "writr" names no agent of this workflow; the validator will evaluate its whole input`, probs.Warnings()[0].Error())

		_, probs = agenttest.Build(t, reg, strings.Replace(src, "writr", "writer", 1), &agenttest.Workspace{Types: map[string]string{"writer": "llm"}})
		assert.Empty(t, probs.Warnings())
	}

	// At run time, a target with no output is a warning event.
	src := "orchestrator: {id: w, agents: [v]}\nagents:\n  - {id: v, type: loop_validator, llm_model: m, provider: ollama, evaluation_target: ghost}\n"
	_, rec := runWF(t, src, "v: [x]", "the input")
	assert.Contains(t, strings.Join(warningsOf(rec), "\n"), `evaluation_target "ghost" has no output here`)
	assert.Contains(t, promptsOf(rec, "v")[0], `"input": "the input"`)
}

func TestConfigProblems(t *testing.T) {
	head := "orchestrator: {id: w, agents: [v]}\nagents:\n  - id: v\n"
	loopHead := "orchestrator: {id: w, agents: [l]}\nagents:\n  - id: l\n    type: loop\n"
	inner := "    internal_workflow:\n      orchestrator: {id: i, agents: [a]}\n      agents: [{id: a, type: scripted, responses: [x]}]\n"
	tests := []struct {
		name    string
		src     string
		errs    []string
		warning string
	}{
		{"unknown scoring_preset", head + "    type: loop_validator\n    llm_model: m\n    provider: ollama\n    scoring_preset: harsh\n",
			[]string{`wf.yaml:7:5: agent "v": unknown scoring preset "harsh" for context loop_convergence (known: strict, moderate, lenient)`}, ""},
		{"unknown mode", head + "    type: loop_validator\n    llm_model: m\n    provider: ollama\n    mode: spiral\n",
			[]string{`wf.yaml:7:5: agent "v": unknown mode "spiral" (loop, path, or a scoring context: graphscout (also path), loop_convergence, quality, validation)`}, ""},
		{"missing llm_model", head + "    type: loop_validator\n    provider: ollama\n",
			[]string{`wf.yaml:3:5: agent "v": llm_model is required`}, ""},
		{"model and llm_model", head + "    type: loop_validator\n    llm_model: m\n    model: m\n    provider: ollama\n",
			[]string{`wf.yaml:6:5: agent "v": llm_model and model are the same setting here: give one of them`}, ""},
		{"missing provider", head + "    type: loop_validator\n    llm_model: m\n",
			[]string{`wf.yaml:3:5: agent "v": provider is required (openai, `}, ""},
		{"bad provider", head + "    type: plan_validator\n    llm_model: m\n    llm_provider: acme\n",
			[]string{`wf.yaml:6:5: agent "v": unknown provider "acme"`}, ""},
		{"unknown key", head + "    type: loop_validator\n    llm_model: m\n    provider: ollama\n    scoring_presets: strict\n",
			[]string{`wf.yaml:7:5: agent "v": unknown key "scoring_presets" (did you mean "scoring_preset"?)`}, ""},
		{"plan custom weight names no criterion", head + "    type: plan_validator\n    llm_model: m\n    provider: ollama\n    custom_weights:\n      completeness.has_all_steps: 0.3\n      safety.validates_inputs: -1\n",
			[]string{`wf.yaml:8:7: agent "v": custom_weights: custom weight "completeness.has_all_steps": no such criterion of preset graphscout/moderate (criteria: completeness.has_all_required_steps, `,
				`wf.yaml:9:7: agent "v": custom_weights: custom weight "safety.validates_inputs": bad weight: -1 is negative`}, ""},
		{"plan unknown context", head + "    type: plan_validator\n    llm_model: m\n    provider: ollama\n    scoring_context: vibes\n",
			[]string{`wf.yaml:7:5: agent "v": unknown scoring context "vibes"`}, ""},
		{"loop unknown preset", loopHead + "    scoring: {preset: medium}\n" + inner,
			[]string{`wf.yaml:5:15: agent "l": scoring: unknown scoring preset "medium" for context loop_convergence (known: strict, moderate, lenient)`}, ""},
		{"loop unknown context", loopHead + "    scoring: {preset: strict, context: convergence}\n" + inner,
			[]string{`wf.yaml:5:31: agent "l": scoring: unknown scoring context "convergence" (known: graphscout (also path), loop_convergence, quality, validation)`}, ""},
		{"loop custom weight names no criterion", loopHead + "    scoring:\n      preset: strict\n      custom_weights:\n        improvement.better: 0.5\n        stability.not_degrading: -0.1\n        convergence.within_tolerance: lots\n" + inner,
			[]string{`wf.yaml:8:9: agent "l": scoring: custom_weights: custom weight "improvement.better": no such criterion of preset loop_convergence/strict`,
				`wf.yaml:9:9: agent "l": scoring: custom_weights: custom weight "stability.not_degrading": bad weight: -0.1 is negative`,
				`wf.yaml:10:39: agent "l": scoring: custom_weights: the weight of "convergence.within_tolerance" must be one number, not "lots"`}, ""},
		{"loop custom weights not a mapping", loopHead + "    scoring: {preset: strict, custom_weights: [a]}\n" + inner,
			[]string{`wf.yaml:5:31: agent "l": scoring: custom_weights must be a mapping`}, ""},
		{"loop scoring unknown key", loopHead + "    scoring: {preset: strict, contxt: quality}\n" + inner,
			[]string{`unknown key "contxt" (did you mean "context"?)`}, ""},
		{"model alias warns", head + "    type: loop_validator\n    model: m\n    provider: ollama\n", nil,
			`wf.yaml:5:5: agent "v": model is read as llm_model (OrKa's loop_validator only accepts llm_model)`},
		{"custom prompt without content", head + "    type: loop_validator\n    llm_model: m\n    provider: ollama\n    custom_prompt: Judge it.\n", nil,
			`wf.yaml:7:5: agent "v": custom_prompt has no {content} placeholder`},
		{"prompt is ignored", head + "    type: loop_validator\n    llm_model: m\n    provider: ollama\n    prompt: hi\n", nil,
			`wf.yaml:7:5: agent "v": prompt is accepted for OrKa compatibility and ignored`},
		{"loop scoring context without preset", loopHead + "    scoring: {context: qualty}\n" + inner,
			[]string{`wf.yaml:5:15: agent "l": scoring: unknown scoring context "qualty"`}, ""},
		{"loop scoring without preset", loopHead + "    scoring: {context: quality}\n" + inner, nil,
			`wf.yaml:5:14: agent "l": scoring: scoring has no preset, so boolean scoring is off (preset: strict, moderate, lenient)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wf, err := cogloop.Parse([]byte(tc.src), "wf.yaml")
			if len(tc.errs) > 0 {
				require.Error(t, err)
				for _, w := range tc.errs {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			var warned []string
			for _, w := range wf.Warnings {
				warned = append(warned, w.Error())
			}
			assert.Contains(t, strings.Join(warned, "\n"), tc.warning)
		})
	}
}

// TestProviderIsCalledWithoutRunModels checks the validator reaches its
// provider through package llm when the run supplies no models.
func TestProviderIsCalledWithoutRunModels(t *testing.T) {
	var got agenttest.ChatRequest
	var readErr error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, readErr = agenttest.ReadChatRequest(r)
		agenttest.WriteChatReply(w, `{"IMPROVEMENT": {"better_than_previous": true}}`, 50, 9)
	}))
	defer srv.Close()
	src := "orchestrator: {id: w, agents: [v]}\nagents:\n  - {id: v, type: loop_validator, llm_model: judge-1, provider: openai_compatible, model_url: " + srv.URL + "}\n"
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	out := agenttest.Output(t, res.Outputs, "v").Map()
	assert.InDelta(t, 1.0/7, out["validation_score"], 1e-12)
	assert.Equal(t, "judge-1", got.Model)
	assert.Equal(t, 0.1, got.Temperature, "OrKa's validator temperature")
	require.NoError(t, readErr)
	assert.Contains(t, got.Prompt, "MODERATE loop_convergence criteria")
	o, _ := res.Outputs.Get("v")
	assert.Equal(t, spend.Usage{PromptTokens: 50, CompletionTokens: 9}, o.Usage)
}

// orkaExamples holds OrKa's own example files, copied unchanged (see its NOTICE).
var orkaExamples = filepath.Join("testdata", "orka")

// TestOrKaSimpleBooleanLoopRunsUnchanged loads OrKa's simple_boolean_loop.yml
// as it is and runs it offline with scripted replies.
func TestOrKaSimpleBooleanLoopRunsUnchanged(t *testing.T) {
	wf, err := cogloop.Load(filepath.Join(orkaExamples, "simple_boolean_loop.yml"))
	require.NoError(t, err)
	for _, w := range wf.Warnings {
		assert.NotContains(t, w.Msg, "boolean_evaluator", "the validator's OrKa keys all load: %s", w)
		assert.NotContains(t, w.Msg, "scoring", "the loop's scoring block loads: %s", w)
	}

	data, err := os.ReadFile(filepath.Join("testdata", "simple_boolean_replies.yaml"))
	require.NoError(t, err)
	script, err := scripted.Parse(data, "testdata/simple_boolean_replies.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "Analyze the impact of AI on healthcare",
		cogloop.WithModels(script), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)

	loop := agenttest.Output(t, res.Outputs, "quality_loop").Map()
	// lenient loop_convergence with the example's custom weights sums to 1.5:
	// nothing; better_than_previous (0.5/1.5); + within_tolerance (0.8/1.5 ≥ 0.40).
	assert.Equal(t, []float64{0, 0.3333, 0.5333}, iterationScores(t, loop))
	assert.Equal(t, 3, loop["loops_completed"])
	assert.Equal(t, true, loop["threshold_met"])
	assert.Equal(t, 0.5333, loop["final_score"])

	judge := promptsOf(rec, "boolean_evaluator")
	require.Len(t, judge, 3)
	assert.Contains(t, judge[0], "LENIENT loop_convergence criteria", "scoring_context: quality keeps loop mode, as in OrKa")
	assert.Contains(t, judge[0], "## KEY INSIGHTS\n1. AI speeds up diagnosis", "evaluation_target: analyzer is what is judged")
	analyzer := promptsOf(rec, "analyzer")
	require.Len(t, analyzer, 3)
	assert.Contains(t, analyzer[1], "FEEDBACK FROM LOOP 1:")
	assert.Contains(t, analyzer[1], "Score: 0.0 (target: 0.40)")
	assert.Equal(t, "## KEY INSIGHTS\n1. AI triages scans, shortens waits and flags risk early.\n## CONCLUSION\nAdopt with oversight.", res.Text())
}

// TestValidatorExampleRunsOffline runs examples/validator as the README shows.
func TestValidatorExampleRunsOffline(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "validator")
	wf, err := cogloop.Load(filepath.Join(dir, "workflow.yaml"))
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	data, err := os.ReadFile(filepath.Join(dir, "replies.yaml"))
	require.NoError(t, err)
	script, err := scripted.Parse(data, "replies.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "why loops converge", cogloop.WithModels(script))
	require.NoError(t, err)

	refine := agenttest.Output(t, res.Outputs, "refine").Map()
	assert.Equal(t, []float64{0, 0.58, 0.92}, iterationScores(t, refine))
	assert.Equal(t, "threshold", refine["stop_reason"])
	check := agenttest.Output(t, res.Outputs, "plan_check").Map()
	assert.Equal(t, 0.81, check["validation_score"])
	assert.Equal(t, "APPROVED", check["overall_assessment"])
	assert.Equal(t, "Sound order and a retry; no input validation or timeouts.", check["rationale"])
	assert.Contains(t, res.Text(), "Converged in 3 passes")
}

const toneContext = `context: tone
description: Does the text sound right?
criteria:
  tone.friendly: The text is friendly.
  tone.concise: The text is concise.
  style.plain: The text uses plain words.
presets:
  gentle:
    instruction: Be kind.
    approved: 0.7
    needs_improvement: 0.4
    weights: {tone.friendly: 0.5, tone.concise: 0.3, style.plain: 0.2}
`

// TestUserPresetsFromTheEnvironment: a directory named by $COGLOOP_PRESETS_DIR
// adds a context that both the loop and its validator use.
func TestUserPresetsFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.yaml"), []byte(toneContext), 0o644))
	t.Setenv(scoring.EnvDir, dir)

	src := loopWF("    scoring: {preset: gentle, context: tone}\n", "          mode: tone\n          scoring_preset: gentle\n", "", "writer, judge")
	res, rec := runWF(t, src, "writer: {cycle: [hi]}\njudge: ['{\"TONE\": {\"friendly\": true, \"concise\": true}, \"STYLE\": {\"plain\": false}}']\n", "x")
	loop := agenttest.Output(t, res.Outputs, "l").Map()
	assert.Equal(t, []float64{0.8}, iterationScores(t, loop))
	pr := promptsOf(rec, "judge")[0]
	assert.Contains(t, pr, "GENTLE tone criteria. Be kind.")
	assert.Contains(t, pr, "STYLE:\n- plain: The text uses plain words.")

	t.Setenv(scoring.EnvDir, filepath.Join(dir, "missing"))
	_, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "presets directory $COGLOOP_PRESETS_DIR")
}

func TestCatalogFromTheBuilderOrTheOptions(t *testing.T) {
	own, err := scoring.Embedded().Parse("tone.yaml", []byte(toneContext))
	require.NoError(t, err)
	src := "id: v\ntype: loop_validator\nllm_model: m\nprovider: ollama\nmode: tone\nscoring_preset: gentle\n"

	reg := agents.NewRegistry()
	validate.Register(reg)
	_, probs := agenttest.Build(t, reg, src, nil)
	assert.ErrorContains(t, probs.Err(), `unknown mode "tone"`)
	a := build(t, reg, src, &agenttest.Workspace{Catalog: own})
	require.NotNil(t, a)

	reg = agents.NewRegistry()
	validate.RegisterWith(reg, validate.Options{Presets: own})
	a = build(t, reg, src, nil)
	require.NotNil(t, a)
}
