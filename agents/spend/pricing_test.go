package spend_test

import (
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultPricingLoads: configs/pricing.yaml parses, prices the models the
// examples use, and every price is sane.
func TestDefaultPricingLoads(t *testing.T) {
	p := spend.DefaultPricing()
	require.NotEmpty(t, p)
	for _, m := range []string{"gpt-4o-mini", "gpt-4o", "claude-3-5-haiku-latest", "gemini-2.0-flash"} {
		_, ok := p.Price(m)
		assert.True(t, ok, "%s is priced", m)
	}
	for name, pr := range p {
		assert.GreaterOrEqual(t, pr.Prompt, 0.0, name)
		assert.Greater(t, pr.Completion, 0.0, name)
		assert.Less(t, pr.Completion, 1.0, "%s: prices are per 1k tokens, not per 1M", name)
	}
	p["gpt-4o-mini"] = spend.Price{}
	again, _ := spend.DefaultPricing().Price("gpt-4o-mini")
	assert.NotZero(t, again, "DefaultPricing returns a copy")
}

func TestPriceCost(t *testing.T) {
	pr := spend.Price{Prompt: 0.15, Completion: 0.6}
	assert.InDelta(t, 0.15*2+0.6*0.5, pr.Cost(spend.Usage{PromptTokens: 2000, CompletionTokens: 500}), 1e-12)
	cost, ok := spend.Pricing{"m": pr}.Cost("M", spend.Usage{PromptTokens: 1000})
	assert.True(t, ok)
	assert.InDelta(t, 0.15, cost, 1e-12)
	_, ok = spend.Pricing{}.Cost("m", spend.Usage{})
	assert.False(t, ok)
	cost, ok = spend.Pricing{}.Cost("", spend.Usage{PromptTokens: 1000})
	assert.True(t, ok, "no model is free")
	assert.Zero(t, cost)
}

func TestPricingWith(t *testing.T) {
	base := spend.Pricing{"GPT-X": {Prompt: 1, Completion: 1}, "y": {Prompt: 2, Completion: 2}}
	p := base.With(spend.Pricing{"gpt-x": {Prompt: 3, Completion: 3}, "z": {}})
	assert.Equal(t, []string{"gpt-x", "y", "z"}, p.Models(), "an override replaces the entry whatever its case")
	pr, _ := p.Price("GPT-X")
	assert.Equal(t, 3.0, pr.Prompt)
	assert.Len(t, base, 2, "With leaves the base alone")
}

func TestParsePricing(t *testing.T) {
	p, err := spend.ParsePricing([]byte(`
gpt-test: {prompt: 0.5, completion: 1.5}
"llama3.2:latest": {input: 0, output: 0}
`), "prices.yaml")
	require.NoError(t, err)
	assert.Equal(t, spend.Pricing{"gpt-test": {Prompt: 0.5, Completion: 1.5}, "llama3.2:latest": {}}, p)

	empty, err := spend.ParsePricing(nil, "empty.yaml")
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func TestParsePricingProblems(t *testing.T) {
	src := `a: {prompt: -1, completion: 1}
b: {prompt: 1}
c: {prompt: 1, input: 1, completion: 1}
d: {prompt: cheap, completion: 1}
e: 0.5
f: {prompt: 1, completion: 1, currency: eur}
A: {prompt: 1, completion: 1}
g:
`
	_, err := spend.ParsePricing([]byte(src), "prices.yaml")
	require.Error(t, err)
	require.True(t, load.IsError(err))
	for _, want := range []string{
		`prices.yaml:1:5: pricing: model "a": prompt must not be negative, not -1`,
		`prices.yaml:2:4: pricing: model "b": completion is required`,
		`prices.yaml:3:16: pricing: model "c": input is an alias of prompt: give one of them`,
		`prices.yaml:4:5: pricing: model "d": prompt must be a number, not "cheap"`,
		`prices.yaml:5:4: pricing: model "e" must be a mapping, not "0.5"`,
		`prices.yaml:6:31: pricing: model "f": unknown key "currency"`,
		`prices.yaml:7:1: pricing: model "A" is priced twice (also as "a")`,
		`prices.yaml:8:1: pricing: the price of "g" must be a mapping`,
	} {
		assert.Contains(t, err.Error(), want)
	}

	_, err = spend.ParsePricing([]byte("a: [unclosed"), "bad.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.yaml:1:1: pricing:")
}
