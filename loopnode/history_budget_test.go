package loopnode_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

// recordingModels answers every call with a new lesson and keeps the prompts.
type recordingModels struct {
	mu      sync.Mutex
	prompts []string
}

func (m *recordingModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(_ context.Context, req agents.Request) (agents.Reply, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.prompts = append(m.prompts, req.Prompt)
		return agents.Reply{Text: fmt.Sprintf("The draft shows point number %d in some detail.\nSCORE: 0.%d", len(m.prompts), 1+len(m.prompts)%8)}, nil
	}), nil
}

const budgetLoop = `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 25
    max_past_loops: 100
    score_threshold: 0.99
KEYS    cognitive_extraction:
      enabled: true
      extract_patterns: {insights: ["shows\\s+(.+?)(?:\\n|$)"]}
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - id: a
          type: openai-answer
          model: m
          prompt: |
            Improve {{ get_input() }}.
            {% for p in get_past_loops() %}- pass {{ p.loop_number }} ({{ p.score }}): {{ p.insights }}
            {% endfor %}{% if input.past_loops_left_out %}({{ input.past_loops_left_out }} earlier passes left out){% endif %}
`

func budgetRun(t *testing.T, keys string) []string {
	t.Helper()
	wf, err := cogloop.Parse([]byte(strings.Replace(budgetLoop, "KEYS", keys, 1)), "budget.yaml")
	require.NoError(t, err)
	m := &recordingModels{}
	_, err = wf.Run(context.Background(), "the draft", cogloop.WithModels(m))
	require.NoError(t, err)
	require.Len(t, m.prompts, 25)
	return m.prompts
}

// TestHistoryBudgetBoundsThePrompt: without past_loops_budget the prompt
// grows with every pass (OrKa's behaviour); with max_tokens: 120 every pass's
// prompt stays within the prompt's own text plus 120 tokens, lists the newest
// passes first and says how many it left out.
func TestHistoryBudgetBoundsThePrompt(t *testing.T) {
	const budget = 120
	first := spend.EstimateTokens(budgetRun(t, "")[0]) // pass 1: no history
	off := budgetRun(t, "")
	assert.Greater(t, spend.EstimateTokens(off[24]), first+budget, "without a budget the 25th prompt carries the whole history")
	assert.Contains(t, off[24], "- pass 1 (", "oldest first")

	on := budgetRun(t, fmt.Sprintf("    past_loops_budget: {max_tokens: %d, keep: recent}\n", budget))
	for k, p := range on {
		assert.LessOrEqual(t, spend.EstimateTokens(p), first+budget+10, "pass %d: %s", k+1, p)
	}
	last := on[24]
	assert.True(t, strings.Index(last, "- pass 24 (") < strings.Index(last, "- pass 23 ("), "newest first: %s", last)
	assert.NotContains(t, last, "- pass 1 (")
	listed := strings.Count(last, "- pass ")
	assert.Contains(t, last, fmt.Sprintf("(%d earlier passes left out)", 24-listed))
	assert.Equal(t, on[0], off[0], "pass 1 is the same")
}

// TestHistoryBudgetLoadErrors: the keys are checked at load, with positions.
func TestHistoryBudgetLoadErrors(t *testing.T) {
	for keys, want := range map[string]string{
		"    past_loops_budget: {keep: best}\n":                    "needs max_tokens",
		"    past_loops_budget: {max_tokens: 100, keep: oldest}\n": `keep must be recent, best or mixed, not "oldest"`,
		"    past_loops_budget: {max_tokens: 0}\n":                 "max_tokens",
		"    past_loops_budget: {max_tokens: 10, kept: best}\n":    `unknown key "kept"`,
	} {
		_, err := cogloop.Parse([]byte(strings.Replace(budgetLoop, "KEYS", keys, 1)), "budget.yaml")
		require.Error(t, err, keys)
		assert.Contains(t, err.Error(), want, keys)
		assert.Contains(t, err.Error(), "budget.yaml:", keys)
	}
}
