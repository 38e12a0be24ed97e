package agents_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/scoring"
)

func config(t *testing.T, src string) (*load.Config, *load.Problems) {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(src), &doc))
	probs := &load.Problems{}
	return load.NewConfig("f.yaml", &doc, `agent "l"`, probs), probs
}

// Builder.Budget reads a budget and notes it for the load's price check; a
// bad budget is recorded and not noted.
func TestBuilderBudgetNotesWhatItReads(t *testing.T) {
	w := &agenttest.Workspace{}
	c, probs := config(t, "budget: {max_tokens: 100}\n")
	l, ok := w.Builder().Budget(c, "budget")
	require.True(t, ok)
	require.NoError(t, probs.Err())
	assert.Equal(t, []spend.Limit{l}, w.Budgets)
	assert.Equal(t, 100, l.MaxTokens)

	c, probs = config(t, "budget: {max_tokens: 0}\n")
	_, ok = w.Builder().Budget(c, "budget")
	assert.False(t, ok)
	assert.ErrorContains(t, probs.Err(), "max_tokens must be at least 1")
	assert.Len(t, w.Budgets, 1, "a bad budget is not noted")

	c, _ = config(t, "other: 1\n")
	_, ok = w.Builder().Budget(c, "budget")
	assert.False(t, ok)
	assert.Len(t, w.Budgets, 1, "no budget, nothing noted")
}

// Builder.Presets is the workflow's catalog, else the default one.
func TestBuilderPresetsFallsBackToTheDefault(t *testing.T) {
	t.Setenv(scoring.EnvDir, "")
	own, err := scoring.Embedded().Parse("tone.yaml", []byte("context: tone\ncriteria: {tone.kind: be kind}\npresets:\n  gentle: {approved: 0.5, needs_improvement: 0.2, weights: {tone.kind: 1}}\n"))
	require.NoError(t, err)
	got, err := (&agenttest.Workspace{Catalog: own}).Builder().Presets()
	require.NoError(t, err)
	assert.Same(t, own, got)

	got, err = (&agenttest.Workspace{}).Builder().Presets()
	require.NoError(t, err)
	assert.Same(t, scoring.Embedded(), got)
}
