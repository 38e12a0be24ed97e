package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
)

// budgetRegistry is retryRegistry plus sub: runs its internal_workflow in a
// budget scope of its own when it has budget: (as a loop does).
func budgetRegistry(t *testing.T) *agents.Registry {
	t.Helper()
	var runs atomic.Int64
	r := retryRegistry(t, &runs)
	r.MustRegister("sub", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		l, limited := b.Budget(c, "budget")
		inner, err := b.Workflow(c.Node("internal_workflow"), "internal_workflow")
		if err != nil {
			return nil, err
		}
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			if limited {
				in.Budget = in.Budget.Child(l)
			}
			return inner.Run(ctx, in)
		}), nil
	})
	return r
}

func parseBudget(t *testing.T, src string, opts ...Option) (*Workflow, []load.Problem, error) {
	t.Helper()
	return Parse([]byte(src), "wf.yaml", budgetRegistry(t), opts...)
}

func calls(t *testing.T, s *scripted.Script, id string) int {
	m, err := s.ModelFor(id)
	require.NoError(t, err)
	return m.(*scripted.Model).Calls()
}

const threeWriters = `orchestrator:
  id: w
  agents: [a, b, c]
  budget: {max_tokens: 280}
  pricing: {gpt-test: {prompt: 1, completion: 2}}
agents:
  - {id: a, type: openai-answer, model: gpt-test, max_tokens: 60, prompt: one}
  - {id: b, type: openai-answer, model: gpt-test, max_tokens: 60, prompt: two}
  - {id: c, type: openai-answer, model: gpt-test, max_tokens: 60, prompt: three}
`

const threeReplies = `
a: [{text: A, usage: {prompt_tokens: 50, completion_tokens: 60}}]
b: [{text: B, usage: {prompt_tokens: 50, completion_tokens: 60}}]
c: [{text: C, usage: {prompt_tokens: 50, completion_tokens: 60}}]
`

// TestWorkflowBudgetStopsBeforeTheCallThatWouldOvershoot: 220 tokens spent
// after two calls; the third reserves about 65 more and would pass 280, so it
// is refused and its model never called.
func TestWorkflowBudgetStopsBeforeTheCallThatWouldOvershoot(t *testing.T) {
	w, _, err := parseBudget(t, threeWriters)
	require.NoError(t, err)
	l, ok := w.Budget()
	require.True(t, ok)
	assert.Equal(t, 280, l.MaxTokens)
	assert.Equal(t, `workflow "w"`, l.Name)

	s := agenttest.Script(t, threeReplies)
	rec := &recorderT{}
	root := spend.NewBudget(spend.Limit{}, w.Pricing())
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r", Models: s, Observe: rec.observe}, Budget: root})
	require.NoError(t, err)

	c, _ := out.Children.Get("c")
	require.True(t, c.Failed())
	assert.Contains(t, c.Err, "budget exceeded")
	assert.Contains(t, c.Err, `the budget of workflow "w" allows 280 tokens, 220 are spent`)
	assert.Equal(t, 1, calls(t, s, "a"))
	assert.Equal(t, 1, calls(t, s, "b"))
	assert.Equal(t, 0, calls(t, s, "c"), "the refused call never reached the model")

	assert.Equal(t, 220, root.Spent().Total())
	assert.True(t, root.Exceeded())
	assert.Equal(t, 220, out.Usage.Total())
	assert.InDelta(t, 2*(0.05+0.12), out.Usage.Cost, 1e-12, "usage carries the cost at the file's prices")

	var costs []float64
	for _, e := range rec.events {
		if e.Kind == event.AgentEnd && e.Usage != nil {
			costs = append(costs, e.Usage.Cost)
		}
	}
	assert.InDeltaSlice(t, []float64{0.17, 0.17}, costs, 1e-12, "agent.end events carry each call's cost")
}

type recorderT struct{ events []event.Event }

func (r *recorderT) observe(e event.Event) { r.events = append(r.events, e) }

func TestWorkflowWithoutABudgetInputOpensItsOwnScope(t *testing.T) {
	w, _, err := parseBudget(t, threeWriters)
	require.NoError(t, err)
	s := agenttest.Script(t, threeReplies)
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{Models: s}})
	require.NoError(t, err)
	c, _ := out.Children.Get("c")
	assert.True(t, c.Failed(), "the limit holds without a budget from the caller")
	assert.Equal(t, 0, calls(t, s, "c"))
}

// TestNestedBudgetScopes: a call inside sub must fit sub's budget and the
// workflow's.
func TestNestedBudgetScopes(t *testing.T) {
	w, _, err := parseBudget(t, `orchestrator:
  id: w
  agents: [inner, outer]
  budget: {max_tokens: 1000}
agents:
  - id: inner
    type: sub
    budget: {max_tokens: 140}
    internal_workflow:
      orchestrator: {id: i, agents: [x, y]}
      agents:
        - {id: x, type: openai-answer, model: gpt-4o-mini, max_tokens: 40, prompt: p}
        - {id: y, type: openai-answer, model: gpt-4o-mini, max_tokens: 40, prompt: p}
  - {id: outer, type: openai-answer, model: gpt-4o-mini, max_tokens: 40, prompt: p}
`)
	require.NoError(t, err)
	s := agenttest.Script(t, `
x: [{text: X, usage: {prompt_tokens: 60, completion_tokens: 40}}]
y: [{text: Y, usage: {prompt_tokens: 60, completion_tokens: 40}}]
outer: [{text: O, usage: {prompt_tokens: 60, completion_tokens: 40}}]
`)
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{Models: s}})
	require.NoError(t, err)
	assert.Equal(t, 1, calls(t, s, "x"))
	assert.Equal(t, 0, calls(t, s, "y"), "100 spent in sub's 140: y's worst case does not fit")
	assert.Equal(t, 1, calls(t, s, "outer"), "the workflow's own budget still has room")
	inner, _ := out.Children.Get("inner")
	y, _ := inner.Children.Get("y")
	assert.Contains(t, y.Err, `the budget of agent "inner" allows 140 tokens`)
}

func TestNestedOrchestratorBudgetIsAScope(t *testing.T) {
	w, _, err := parseBudget(t, `orchestrator: {id: w, agents: [inner]}
agents:
  - id: inner
    type: sub
    internal_workflow:
      orchestrator: {id: i, agents: [x, y], budget: {max_tokens: 140}}
      agents:
        - {id: x, type: openai-answer, model: gpt-4o-mini, max_tokens: 40, prompt: p}
        - {id: y, type: openai-answer, model: gpt-4o-mini, max_tokens: 40, prompt: p}
`)
	require.NoError(t, err)
	s := agenttest.Script(t, "x: [{text: X, usage: {prompt_tokens: 60, completion_tokens: 40}}]\ny: [Y]\n")
	_, err = w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{Models: s}})
	require.NoError(t, err)
	assert.Equal(t, 0, calls(t, s, "y"))
}

func TestBudgetAndPricingLoadProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"max_cost without a price for a model in use", `orchestrator:
  id: w
  agents: [a]
  budget: {max_cost: 0.5}
agents:
  - {id: a, type: openai-answer, model: mystery-1, prompt: p}
`, []string{`wf.yaml:6:41: agent "a": model "mystery-1" has no price, and the budget at wf.yaml:4:3 limits cost`, "pricing:"}},
		{"a loop's max_cost needs prices too", `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: sub
    budget: {max_cost: 1}
    internal_workflow:
      orchestrator: {id: i, agents: [x]}
      agents:
        - {id: x, type: llm, provider: ollama, model: "llama3.2:latest", prompt: p}
`, []string{`wf.yaml:9:55: agent "x": model "llama3.2:latest" has no price, and the budget at wf.yaml:5:5 limits cost`}},
		{"bad budget", "orchestrator: {id: w, agents: [a], budget: {max_tokens: -1, max_cost: nope}}\nagents: [{id: a, type: echo}]\n",
			[]string{"wf.yaml:1:45: workflow: orchestrator: budget: max_tokens must be at least 1, not -1", `wf.yaml:1:61: workflow: orchestrator: budget: max_cost must be a number, not "nope"`}},
		{"bad price", "orchestrator:\n  id: w\n  agents: [a]\n  pricing:\n    m: {prompt: -0.1, completion: 1}\nagents: [{id: a, type: echo}]\n",
			[]string{`wf.yaml:5:9: workflow: orchestrator: pricing: model "m": prompt must not be negative`}},
		{"pricing not a table", "orchestrator: {id: w, agents: [a], pricing: [1]}\nagents: [{id: a, type: echo}]\n",
			[]string{"wf.yaml:1:36: workflow: orchestrator: pricing must be a mapping"}},
		{"pricing file missing", "orchestrator: {id: w, agents: [a], pricing: nowhere.yaml}\nagents: [{id: a, type: echo}]\n",
			[]string{"wf.yaml:1:36: workflow: orchestrator: pricing file:", "nowhere.yaml"}},
		{"pricing on a nested orchestrator", `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: sub
    internal_workflow:
      orchestrator: {id: i, agents: [x], pricing: {m: {prompt: 1, completion: 1}}}
      agents: [{id: x, type: echo}]
`, []string{"wf.yaml:6:42: internal_workflow: orchestrator: pricing belongs on the top-level orchestrator"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parseBudget(t, tc.src)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestTokenOnlyBudgetWarnsAboutUnpricedModels(t *testing.T) {
	_, warnings, err := parseBudget(t, `orchestrator:
  id: w
  agents: [a, b]
  budget: {max_tokens: 5000}
agents:
  - {id: a, type: openai-answer, model: mystery-1, prompt: p}
  - {id: b, type: openai-answer, model: gpt-4o-mini, prompt: p}
`)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Equal(t, `wf.yaml:6:41: agent "a": model "mystery-1" has no price; the budget at wf.yaml:4:3 limits only tokens, so its calls count no cost (price it with pricing: on the orchestrator)`, warnings[0].Error())

	_, warnings, err = parseBudget(t, "orchestrator: {id: w, agents: [a]}\nagents: [{id: a, type: openai-answer, model: mystery-1, prompt: p}]\n")
	require.NoError(t, err)
	assert.Empty(t, warnings, "without a budget an unpriced model is fine")
}

func TestPricingOverridesAndFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte("mystery-1: {input: 0.5, output: 1}\n"), 0o600))
	wfPath := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wfPath, []byte(`orchestrator:
  id: w
  agents: [a]
  budget: {max_cost: 1}
  pricing: prices.yaml
agents:
  - {id: a, type: openai-answer, model: mystery-1, prompt: p}
`), 0o600))
	w, _, err := Load(wfPath, budgetRegistry(t))
	require.NoError(t, err)
	p, ok := w.Pricing().Price("mystery-1")
	require.True(t, ok)
	assert.Equal(t, spend.Price{Prompt: 0.5, Completion: 1}, p)
	_, ok = w.Pricing().Price("gpt-4o-mini")
	assert.True(t, ok, "a pricing file adds to the built-in table")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte("mystery-1: {prompt: 1}\n"), 0o600))
	_, _, err = Load(wfPath, budgetRegistry(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "prices.yaml")+`:1:12: pricing: model "mystery-1": completion is required`)

	// WithPricing replaces the built-in table; inline pricing adds to it.
	w, _, err = parseBudget(t, "orchestrator:\n  id: w\n  agents: [a]\n  pricing: {gpt-4o-mini: {prompt: 9, completion: 9}}\nagents: [{id: a, type: echo}]\n",
		WithPricing(spend.Pricing{"own": {Prompt: 1, Completion: 1}}))
	require.NoError(t, err)
	assert.Equal(t, []string{"gpt-4o-mini", "own"}, w.Pricing().Models())
	p, _ = w.Pricing().Price("gpt-4o-mini")
	assert.Equal(t, 9.0, p.Prompt)
	assert.False(t, strings.Contains(strings.Join(w.Pricing().Models(), ","), "gpt-4o,"))
}
