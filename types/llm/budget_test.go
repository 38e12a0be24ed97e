package llm_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

// countingModel answers every call with text and usage, counting the calls
// and the requests it saw.
type countingModel struct {
	mu    sync.Mutex
	reqs  []agents.Request
	text  string
	usage spend.Usage
}

func (m *countingModel) Generate(ctx context.Context, req agents.Request) (agents.Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	return agents.Reply{Text: m.text, Usage: m.usage}, nil
}

func (m *countingModel) calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

type oneModel struct{ m agents.Model }

func (s oneModel) ModelFor(string) (agents.Model, error) { return s.m, nil }

// TestBudgetRefusesTheCallThatWouldOvershoot: each call reserves its prompt
// estimate plus max_tokens; the call whose worst case no longer fits is
// refused before the model is asked, and is not retried.
func TestBudgetRefusesTheCallThatWouldOvershoot(t *testing.T) {
	model := &countingModel{text: "answer", usage: spend.Usage{PromptTokens: 30, CompletionTokens: 40}}
	rec := &recorder{}
	sl := &fakeSleep{}
	a := mustBuild(t, llm.Options{Getenv: env(), Sleep: sl.Sleep},
		"id: w\ntype: openai-answer\nmodel: gpt-test\nmax_tokens: 50\nprompt: Write it\nretry: {count: 3, on: [error]}\n")
	in := input(rec)
	in.Run.Models = oneModel{model}
	budget := spend.NewBudget(spend.Limit{MaxTokens: 250, Name: "workflow"}, spend.Pricing{"gpt-test": {Prompt: 1, Completion: 2}})
	in.Budget = budget

	worst := agents.Request{Prompt: "Write it", MaxTokens: 50}.WorstCase().Total()
	require.Less(t, worst, 70, "the test assumes 3 calls fit and the 4th does not")
	for i := range 3 {
		out, err := a.Run(context.Background(), in)
		require.NoError(t, err, "call %d", i+1)
		assert.Equal(t, spend.Usage{PromptTokens: 30, CompletionTokens: 40, Cost: 0.03 + 0.08}, out.Usage)
	}
	require.Equal(t, 210, budget.Spent().Total())
	_, err := a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "210 spent + %d worst case > 250", worst)
	assert.Equal(t, 3, model.calls(), "the refused call never reached the model")
	assert.Empty(t, sl.Waits(), "a budget refusal is not retried")
	assert.Equal(t, 210, budget.Spent().Total())
	assert.True(t, budget.Exceeded())
	assert.InDelta(t, 3*0.11, budget.Spent().Cost, 1e-12)
	for _, e := range rec.Events() {
		assert.NotEqual(t, event.AgentRetry, e.Kind)
	}
}

// TestBudgetOvershootsByAtMostOneCall: a call that uses more than its worst
// case is counted in full; the next call is refused, so the run passes its
// limit by that one call at most.
func TestBudgetOvershootsByAtMostOneCall(t *testing.T) {
	model := &countingModel{text: "long", usage: spend.Usage{PromptTokens: 10, CompletionTokens: 500}}
	a := mustBuild(t, llm.Options{Getenv: env()}, "id: w\ntype: openai-answer\nmodel: gpt-test\nmax_tokens: 20\nprompt: p\n")
	in := input(nil)
	in.Run = &agents.Run{Models: oneModel{model}}
	in.Budget = spend.NewBudget(spend.Limit{MaxTokens: 100}, nil)
	_, err := a.Run(context.Background(), in)
	require.NoError(t, err, "the worst case (about 30) fits")
	_, err = a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded)
	assert.Equal(t, 1, model.calls())
	assert.Equal(t, 510, in.Budget.Spent().Total(), "over by one call")
}

func TestBudgetDefaultReserveWithoutMaxTokens(t *testing.T) {
	model := &countingModel{text: "x", usage: spend.Usage{PromptTokens: 1, CompletionTokens: 1}}
	a := mustBuild(t, llm.Options{Getenv: env()}, "id: w\ntype: openai-answer\nmodel: gpt-test\nprompt: p\n")
	in := input(nil)
	in.Run = &agents.Run{Models: oneModel{model}}
	in.Budget = spend.NewBudget(spend.Limit{MaxTokens: spend.DefaultReserveTokens}, nil)
	_, err := a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "without max_tokens a call reserves DefaultReserveTokens of completion")
	assert.Zero(t, model.calls())

	in.Budget = spend.NewBudget(spend.Limit{MaxTokens: spend.DefaultReserveTokens + 100}, nil)
	_, err = a.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, 0, model.reqs[0].MaxTokens, "the reserve is not sent as max_tokens")
}

func TestBudgetCountsAnEstimateWhenTheModelReportsNoUsage(t *testing.T) {
	model := &countingModel{text: "twelve chars"}
	a := mustBuild(t, llm.Options{Getenv: env()}, "id: w\ntype: openai-answer\nmodel: gpt-test\nmax_tokens: 10\nprompt: p\n")
	in := input(nil)
	in.Run = &agents.Run{Models: oneModel{model}}
	in.Budget = spend.NewBudget(spend.Limit{}, nil)
	out, err := a.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Zero(t, out.Usage, "the output reports what the model said")
	want := spend.Usage{PromptTokens: spend.EstimateTokens("p"), CompletionTokens: spend.EstimateTokens("twelve chars")}
	assert.Equal(t, want, in.Budget.Spent(), "the budget counts an estimate")
}

func TestCostLimitNeedsAPrice(t *testing.T) {
	model := &countingModel{text: "x", usage: spend.Usage{PromptTokens: 1}}
	a := mustBuild(t, llm.Options{Getenv: env()}, "id: w\ntype: openai-answer\nmodel: mystery-model\nmax_tokens: 10\nprompt: p\n")
	in := input(nil)
	in.Run = &agents.Run{Models: oneModel{model}}
	in.Budget = spend.NewBudget(spend.Limit{MaxCost: 1}, spend.Pricing{})
	_, err := a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrNoPrice)
	assert.Contains(t, err.Error(), `"mystery-model"`)
	assert.Zero(t, model.calls())
}

func TestModelsNamesThePricedModel(t *testing.T) {
	o := llm.Options{Getenv: env("BASE_OPENAI_MODEL", "gpt-from-env")}
	named := mustBuild(t, o, "id: a\ntype: openai-answer\nmodel: gpt-4o-mini\nprompt: p\n").(agents.ModelUser)
	assert.Equal(t, []string{"gpt-4o-mini"}, named.Models())
	fallback := mustBuild(t, o, "id: a\ntype: openai-answer\nprompt: p\n").(agents.ModelUser)
	assert.Equal(t, []string{"gpt-from-env"}, fallback.Models(), "OpenAI agents without a model use $BASE_OPENAI_MODEL")
	scripted := mustBuild(t, o, "id: s\ntype: scripted\nresponses: [a]\n").(agents.ModelUser)
	assert.Empty(t, scripted.Models(), "scripted replies cost nothing")
}

// TestScriptedTypeIsFreeUnderACostLimit: the scripted type calls no model.
func TestScriptedTypeIsFreeUnderACostLimit(t *testing.T) {
	a := mustBuild(t, llm.Options{Getenv: env()}, "id: s\ntype: scripted\nresponses: [{text: hi, usage: {prompt_tokens: 5, completion_tokens: 5}}]\n")
	in := input(nil)
	in.Run = &agents.Run{}
	in.Budget = spend.NewBudget(spend.Limit{MaxCost: 0.01, MaxTokens: 2000}, spend.Pricing{})
	out, err := a.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, spend.Usage{PromptTokens: 5, CompletionTokens: 5}, out.Usage)
	assert.Equal(t, 10, in.Budget.Spent().Total())
}
