package spend_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
)

var testPricing = spend.Pricing{"m": {Prompt: 1, Completion: 2}} // $ per 1k tokens

func TestReserveRefusesTheCallThatMightOvershoot(t *testing.T) {
	b := spend.NewBudget(spend.Limit{MaxTokens: 100, Name: "workflow \"w\""}, nil)
	worst := spend.Usage{PromptTokens: 10, CompletionTokens: 20}

	for i := range 3 {
		r, err := b.Reserve("", worst)
		require.NoError(t, err, "call %d fits", i+1)
		r.Settle(worst)
	}
	assert.Equal(t, 90, b.Spent().Total())
	_, err := b.Reserve("", worst)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "90 spent + 30 worst > 100")
	assert.Contains(t, err.Error(), `the budget of workflow "w" allows 100 tokens, 90 are spent and 0 reserved, and this call may use 30`)
	assert.Equal(t, 90, b.Spent().Total(), "a refused call spends nothing")
	assert.True(t, b.Exceeded())

	// A smaller call still fits the 10 tokens left.
	r, err := b.Reserve("", spend.Usage{PromptTokens: 4, CompletionTokens: 6})
	require.NoError(t, err)
	r.Settle(spend.Usage{PromptTokens: 4, CompletionTokens: 6})
	assert.Equal(t, 100, b.Spent().Total())
}

func TestReservationsCountUntilSettled(t *testing.T) {
	b := spend.NewBudget(spend.Limit{MaxTokens: 100}, nil)
	worst := spend.Usage{CompletionTokens: 40}
	r1, err := b.Reserve("", worst)
	require.NoError(t, err)
	r2, err := b.Reserve("", worst)
	require.NoError(t, err)
	_, err = b.Reserve("", worst)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "two calls in flight reserve 80 of 100")

	// Settling releases the worst case and counts the actual usage, once.
	assert.Equal(t, spend.Usage{CompletionTokens: 5}, r1.Settle(spend.Usage{CompletionTokens: 5}))
	r1.Settle(spend.Usage{CompletionTokens: 5})
	r2.Settle(spend.Usage{})
	assert.Equal(t, 5, b.Spent().Total())
	_, err = b.Reserve("", spend.Usage{CompletionTokens: 95})
	require.NoError(t, err)
}

func TestNestedScopes(t *testing.T) {
	root := spend.NewBudget(spend.Limit{MaxTokens: 80, Name: "workflow"}, nil)
	loopA := root.Child(spend.Limit{MaxTokens: 50, Name: "loop a"})
	loopB := root.Child(spend.Limit{MaxTokens: 80, Name: "loop b"})
	call := spend.Usage{CompletionTokens: 30}

	r, err := loopA.Reserve("", call)
	require.NoError(t, err)
	r.Settle(call)
	_, err = loopA.Reserve("", call)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "30 + 30 passes loop a's 50")
	assert.Contains(t, err.Error(), "loop a")
	assert.True(t, loopA.Exceeded())
	assert.True(t, root.Exceeded(), "the enclosing scope sees the refusal")
	assert.False(t, loopB.Exceeded(), "a sibling does not")

	r, err = loopB.Reserve("", call)
	require.NoError(t, err)
	r.Settle(call)
	_, err = loopB.Reserve("", call)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "loop b has room (30 of 80 spent) but the workflow has 20 of 80 left")
	assert.Contains(t, err.Error(), "workflow allows 80 tokens, 60 are spent")
	assert.True(t, loopB.Exceeded(), "the scope the call ran in sees a refusal by an enclosing limit")

	assert.Equal(t, 30, loopA.Spent().Total())
	assert.Equal(t, 30, loopB.Spent().Total())
	assert.Equal(t, 60, root.Spent().Total(), "children's spending is the parent's")

	unlimited := root.Child(spend.Limit{})
	_, err = unlimited.Reserve("", spend.Usage{CompletionTokens: 21})
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "a call must fit every enclosing scope")
}

func TestCostLimitsAndPrices(t *testing.T) {
	b := spend.NewBudget(spend.Limit{MaxCost: 0.05}, testPricing)
	worst := spend.Usage{PromptTokens: 10, CompletionTokens: 10} // $0.01 + $0.02
	r, err := b.Reserve("M", worst)
	require.NoError(t, err, "prices are matched without regard to case")
	got := r.Settle(spend.Usage{PromptTokens: 10, CompletionTokens: 5})
	assert.InDelta(t, 0.02, got.Cost, 1e-12, "settle prices the actual usage")
	assert.InDelta(t, 0.02, b.Spent().Cost, 1e-12)

	_, err = b.Reserve("m", worst)
	require.NoError(t, err, "0.02 + 0.03 = 0.05 fits exactly")
	_, err = b.Reserve("m", spend.Usage{PromptTokens: 1})
	require.ErrorIs(t, err, spend.ErrBudgetExceeded)
	assert.Contains(t, err.Error(), "allows $0.05, $0.02 is spent and $0.03 reserved")

	_, err = b.Reserve("unpriced", spend.Usage{PromptTokens: 1})
	require.ErrorIs(t, err, spend.ErrNoPrice)
	assert.Contains(t, err.Error(), `model "unpriced" has no price`)

	free := spend.NewBudget(spend.Limit{MaxCost: 0.01}, testPricing)
	r, err = free.Reserve("", spend.Usage{PromptTokens: 1000})
	require.NoError(t, err, "no model (scripted replies) is free")
	assert.Zero(t, r.Settle(spend.Usage{PromptTokens: 1000}).Cost)

	// Unicode case folding: the Kelvin sign folds to k (the table is not
	// ASCII, so no lower-cased index is used).
	kelvin := spend.NewBudget(spend.Limit{MaxCost: 1}, spend.Pricing{"\u212Aelvin": {Prompt: 1}})
	r, err = kelvin.Reserve("kelvin", worst)
	require.NoError(t, err)
	assert.InDelta(t, 0.01, r.Settle(worst).Cost, 1e-12)

	tokensOnly := spend.NewBudget(spend.Limit{MaxTokens: 1000}, testPricing)
	r, err = tokensOnly.Reserve("unpriced", spend.Usage{PromptTokens: 1})
	require.NoError(t, err, "a token limit needs no price")
	assert.Zero(t, r.Settle(spend.Usage{PromptTokens: 1}).Cost)
}

func TestNilBudgetLimitsNothing(t *testing.T) {
	var b *spend.Budget
	r, err := b.Reserve("m", spend.Usage{PromptTokens: 1 << 30})
	require.NoError(t, err)
	assert.Equal(t, spend.Usage{PromptTokens: 3}, r.Settle(spend.Usage{PromptTokens: 3, Cost: 9}))
	assert.Zero(t, b.Spent())
	assert.False(t, b.Exceeded())
	assert.False(t, b.Limit().Limited())

	child := b.Child(spend.Limit{MaxTokens: 10})
	_, err = child.Reserve("", spend.Usage{PromptTokens: 11})
	require.ErrorIs(t, err, spend.ErrBudgetExceeded, "a child of no budget is a root with its own limit")
	_, ok := child.Pricing().Price("gpt-4o-mini")
	assert.True(t, ok, "priced with the built-in table")
}

// TestConcurrentReservationsNeverOvershoot: fork branches reserve at once; as
// long as calls use at most their worst case, the limit holds exactly.
func TestConcurrentReservationsNeverOvershoot(t *testing.T) {
	root := spend.NewBudget(spend.Limit{MaxTokens: 1000}, nil)
	worst := spend.Usage{PromptTokens: 7, CompletionTokens: 10}
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	for i := range 8 {
		scope := root.Child(spend.Limit{MaxTokens: 400})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				r, err := scope.Reserve("", worst)
				if err != nil {
					continue
				}
				mu.Lock()
				admitted++
				mu.Unlock()
				r.Settle(spend.Usage{PromptTokens: 7, CompletionTokens: i % 11})
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, root.Spent().Total(), 1000)
	assert.Positive(t, admitted)
	assert.True(t, root.Exceeded())
}

func TestWorstCase(t *testing.T) {
	req := agents.Request{System: "be brief", Prompt: strings.Repeat("word ", 300), MaxTokens: 200}
	w := req.WorstCase()
	assert.Equal(t, 200, w.CompletionTokens)
	assert.Equal(t, spend.EstimateTokens("be brief")+spend.EstimateTokens(req.Prompt), w.PromptTokens)
	assert.GreaterOrEqual(t, w.PromptTokens, 1500/4, "at least the usual 4 bytes a token")

	req.MaxTokens = 0
	assert.Equal(t, spend.DefaultReserveTokens, req.WorstCase().CompletionTokens)
	assert.Zero(t, spend.EstimateTokens(""))
}

func TestReadBudget(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want spend.Limit
		errs []string
	}{
		{"tokens", "budget: {max_tokens: 5000}", spend.Limit{MaxTokens: 5000}, nil},
		{"cost", "budget: {max_cost: 0.50}", spend.Limit{MaxCost: 0.5}, nil},
		{"both", "budget:\n  max_tokens: 10\n  max_cost: 1", spend.Limit{MaxTokens: 10, MaxCost: 1}, nil},
		{"absent", "other: 1", spend.Limit{}, nil},
		{"negative tokens", "budget: {max_tokens: -5}", spend.Limit{}, []string{"f.yaml:1:10: ", "max_tokens must be at least 1, not -5"}},
		{"zero cost", "budget: {max_cost: 0}", spend.Limit{}, []string{"f.yaml:1:10: ", "max_cost must be more than 0"}},
		{"unparseable cost", "budget: {max_cost: \"$1\"}", spend.Limit{}, []string{"f.yaml:1:10: ", `max_cost must be a number, not "$1"`}},
		{"fractional tokens", "budget: {max_tokens: 2.5}", spend.Limit{}, []string{"max_tokens must be a whole number"}},
		{"neither", "budget: {}", spend.Limit{}, []string{"f.yaml:1:1: ", "needs max_tokens", "max_cost"}},
		{"unknown key", "budget: {max_token: 5}", spend.Limit{}, []string{"f.yaml:1:10: ", `unknown key "max_token" (did you mean "max_tokens"?)`}},
		{"scalar", "budget: 100", spend.Limit{}, []string{"f.yaml:1:1: ", "budget must be a mapping {max_tokens, max_cost}"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(tc.src), &doc))
			probs := &load.Problems{}
			c := load.NewConfig("f.yaml", &doc, "agent \"l\"", probs)
			l, ok := spend.ReadBudget(c, "budget")
			c.Accept("other")
			c.Done()
			if tc.errs != nil {
				assert.False(t, ok)
				err := probs.Err()
				require.Error(t, err)
				for _, w := range tc.errs {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, probs.Err())
			assert.Equal(t, tc.want.Limited(), ok)
			if ok {
				assert.Equal(t, tc.want.MaxTokens, l.MaxTokens)
				assert.Equal(t, tc.want.MaxCost, l.MaxCost)
				assert.Equal(t, `agent "l"`, l.Name)
				assert.Equal(t, load.Pos{File: "f.yaml", Line: 1, Col: 1}, l.Pos)
			}
		})
	}
}

// TestCaseInsensitivePricesPerTable: the case-insensitive lookups are kept
// per table across runs; every run still gets its own table's price, with
// more tables in use than are kept.
func TestCaseInsensitivePricesPerTable(t *testing.T) {
	worst := spend.Usage{PromptTokens: 1000}
	tables := make([]spend.Pricing, 40)
	for i := range tables {
		tables[i] = spend.Pricing{"Model-X": {Prompt: float64(i + 1)}}
	}
	for round := range 3 {
		for i, p := range tables {
			if (i+round)%3 == 0 { // runs of several tables interleaved
				continue
			}
			for _, name := range []string{"model-x", "MODEL-X", "Model-X"} {
				r, err := spend.NewBudget(spend.Limit{MaxCost: 1000}, p).Reserve(name, worst)
				require.NoError(t, err)
				assert.InDelta(t, float64(i+1), r.Settle(worst).Cost, 1e-12, "table %d, %s", i, name)
			}
			_, err := spend.NewBudget(spend.Limit{MaxCost: 1000}, p).Reserve("model-y", worst)
			require.ErrorIs(t, err, spend.ErrNoPrice)
		}
	}
}
