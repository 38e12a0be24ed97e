package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replier is a Go agent that gives its replies in order and keeps the
// variables each call saw.
type replier struct {
	replies []string
	saw     []map[string]any
}

func (r *replier) run(_ context.Context, in agents.Input) (agents.Output, error) {
	seen := map[string]any{}
	for k, v := range in.Vars {
		seen[k] = v
	}
	if w, ok := in.Value.(map[string]any); ok { // OrKa's wrapper of the pass's input
		for _, k := range []string{"scoring_context", "past_loops_left_out"} {
			if v, ok := w[k]; ok {
				seen["wrapper."+k] = v
			}
		}
	}
	r.saw = append(r.saw, seen)
	reply := r.replies[min(len(r.saw), len(r.replies))-1]
	return agents.Output{Response: reply}, nil
}

func goSteps(ids []string, rs ...*replier) agents.Sequence {
	var s agents.Sequence
	for i, id := range ids {
		s.Steps = append(s.Steps, agents.NewStep(id, "go", agents.Func(rs[i].run)))
	}
	return s
}

func runGo(t *testing.T, cfg loopnode.Config, input any) map[string]any {
	t.Helper()
	loop, err := loopnode.NewLoop(cfg)
	require.NoError(t, err)
	wf, err := cogloop.New("w", loop)
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), input)
	require.NoError(t, err)
	return loopOut(t, res.Outputs, cfg.ID)
}

// The same loop written in YAML (testdata/vars_queue) and built in Go with
// Vars, Update, StopWhen, Outputs and OutputMappings ends the same way.
func TestGoConfigVarsMatchYAML(t *testing.T) {
	_, want := loopResult(t, "vars_queue", "l")
	worker := &replier{replies: []string{"A", "B", "G"}}
	got := runGo(t, loopnode.Config{
		ID: "l", Body: goSteps([]string{"worker"}, worker), MaxLoops: 10, Threshold: 0.8,
		Vars: []loopnode.Var{{Name: "queue", Value: []any{"alpha", "beta", "gamma"}}, {Name: "done", Value: []any{}}, {Name: "handled", Value: 0}},
		Update: []loopnode.Var{
			{Name: "done", Value: "{{ done + [previous_outputs.worker.response] }}"},
			{Name: "queue", Value: "{{ queue[1:] }}"},
			{Name: "handled", Value: "{{ handled + 1 }}"},
		},
		StopWhen:       []loopnode.Condition{{Kind: "until", Expr: "queue | length == 0"}},
		Outputs:        []string{"done", "handled"},
		OutputMappings: []loopnode.OutputMapping{{Var: "handled", Target: "progress", Take: "all"}},
	}, "work")
	for _, k := range []string{"stop_reason", "loops_completed", "vars", "outputs", "response"} {
		assert.Equal(t, want[k], got[k], k)
	}
	require.Len(t, worker.saw, 3)
	assert.Equal(t, []any{"beta", "gamma"}, worker.saw[1]["queue"], "a pass sees the variables as updated")
}

// testdata/continue_while in Go: a continue_while condition, input mappings
// by pass, output mappings of every take, return: best.
func TestGoConfigMappingsMatchYAML(t *testing.T) {
	_, want := loopResult(t, "continue_while", "l")
	coder := &replier{replies: []string{"parser v1", "parser v2", "parser v3"}}
	review := &replier{replies: []string{
		`{"approved": false, "feedback": "handle errors", "score": 0.4}`,
		`{"approved": false, "feedback": "add tests", "score": 0.9}`,
		`{"approved": true, "feedback": "fine", "score": 0.7}`,
	}}
	got := runGo(t, loopnode.Config{
		ID: "l", Body: goSteps([]string{"coder", "review"}, coder, review), MaxLoops: 5, Threshold: 0.8, Return: loopnode.ReturnBest,
		StopWhen: []loopnode.Condition{{Kind: "continue_while", Output: "review.approved", Operator: "==", Value: false}},
		InputMappings: []loopnode.InputMapping{
			{Outer: "task", Target: "task"},
			{Outer: "guidelines", Target: "context", Iterations: "first"},
			{Node: "review", Output: "feedback", Target: "context", Iterations: "subsequent"},
		},
		OutputMappings: []loopnode.OutputMapping{
			{Node: "review", Output: "approved", Target: "approved"},
			{Node: "coder", Target: "drafts", Take: "all"},
			{Node: "coder", Target: "best_draft", Take: "best"},
			{Builtin: "iteration_count", Target: "iterations"},
		},
	}, map[string]any{"task": "write a parser", "guidelines": "use Go"})
	for _, k := range []string{"stop_reason", "loops_completed", "best_iteration", "outputs", "response"} {
		assert.Equal(t, want[k], got[k], k)
	}
	require.Len(t, coder.saw, 3)
	assert.Equal(t, []any{"use Go", "handle errors", "add tests"}, []any{coder.saw[0]["context"], coder.saw[1]["context"], coder.saw[2]["context"]})
	assert.Equal(t, "write a parser", coder.saw[2]["task"])
}

// Declared inputs, fail_on, the history budget and the scoring context.
func TestGoConfigInputsFailOnBudget(t *testing.T) {
	r := &replier{replies: []string{"SCORE: 0.1"}}
	cfg := loopnode.Config{
		ID: "l", Body: goSteps([]string{"a"}, r), MaxLoops: 2, Threshold: 0.9,
		Inputs:          []loopnode.InputDecl{{Name: "topic", Required: true}, {Name: "tone", Default: "dry"}},
		PastLoopsBudget: 1000, PastLoopsKeep: "best", ScoringContext: "loop_convergence",
	}
	out := runGo(t, cfg, map[string]any{"topic": "bread"})
	assert.Equal(t, loopnode.StopMaxLoops, out["stop_reason"])
	assert.Equal(t, "bread", r.saw[0]["topic"])
	assert.Equal(t, "dry", r.saw[0]["tone"])
	assert.Equal(t, "loop_convergence", r.saw[0]["wrapper.scoring_context"])
	assert.Equal(t, 0, r.saw[1]["wrapper.past_loops_left_out"], "a history budget is on: the pass is told what it left out")

	loop, err := loopnode.NewLoop(cfg)
	require.NoError(t, err)
	wf, err := cogloop.New("w", loop)
	require.NoError(t, err)
	_, err = wf.Run(context.Background(), map[string]any{"tone": "warm"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `required input "topic" is missing`)
	assert.Contains(t, err.Error(), "Config.Inputs[0]", "the error says where the input is declared")

	cfg.Inputs, cfg.FailOn = nil, []string{loopnode.StopMaxLoops}
	loop, err = loopnode.NewLoop(cfg)
	require.NoError(t, err)
	wf, err = cogloop.New("w", loop)
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.Error(t, err, "fail_on: max_loops fails the run")
	assert.Equal(t, cogloop.StatusFailed, res.Status)
	assert.Contains(t, err.Error(), "fail_on lists max_loops")
}

// A bad Go setting is an error at NewLoop that names the field.
func TestGoConfigErrors(t *testing.T) {
	body := goSteps([]string{"a"}, &replier{replies: []string{"x"}})
	for _, tc := range []struct {
		name string
		cfg  loopnode.Config
		want []string
	}{
		{"kind", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "sometimes"}}}, []string{`StopWhen: [0]: unknown condition kind "sometimes"`}},
		{"before", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "score", Before: true}}}, []string{"[0]: Before works with while"}},
		{"nested", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "any", Of: []loopnode.Condition{{Kind: "until", Expr: "x =="}}}}}, []string{"StopWhen: [0].Of[0]:"}},
		{"empty group", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "all"}}}, []string{"all needs a non-empty list"}},
		{"ref", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "evaluator", Agent: "judge"}}}, []string{`StopWhen names "judge", which Body does not define`}},
		{"stagnation", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "stagnation", Rounds: 2}}}, []string{"MinImprovement and Rounds go together"}},
		{"operator", loopnode.Config{StopWhen: []loopnode.Condition{{Kind: "continue_while", Output: "a", Operator: "~"}}}, []string{"names an agent and a field", `not "~"`}},
		{"update", loopnode.Config{Update: []loopnode.Var{{Name: "n", Value: "{{ n }}"}}}, []string{`Update[0]: "n" must name a variable of Vars`}},
		{"reserved var", loopnode.Config{Vars: []loopnode.Var{{Name: "loop_number", Value: 1}}}, []string{"Vars[0]: \"loop_number\" is a name the loop binds"}},
		{"mapping", loopnode.Config{InputMappings: []loopnode.InputMapping{{Target: "x y", Outer: "a", Node: "a"}}}, []string{"give Outer or Node", "Target must be"}},
		{"output mapping", loopnode.Config{OutputMappings: []loopnode.OutputMapping{{Target: "t", Builtin: "count"}}}, []string{`unknown Builtin "count"`}},
		{"outputs", loopnode.Config{Outputs: []string{"nothing"}}, []string{`Outputs: "nothing" is neither`}},
		{"fail_on", loopnode.Config{FailOn: []string{"threshold"}}, []string{`FailOn[0] must be max_loops or timeout, not "threshold"`}},
		{"keep", loopnode.Config{PastLoopsKeep: "oldest"}, []string{`PastLoopsKeep must be recent, best or mixed`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.ID, tc.cfg.Body, tc.cfg.MaxLoops = "l", body, 2
			_, err := loopnode.NewLoop(tc.cfg)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
