package agents_test

import (
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Templates see an output's mapping in OrKa's key order (llm_agents.py: the
// reply's response, confidence, internal_reasoning, then _metrics and
// formatted_prompt), the agent's own order first where it gives one (a
// structured reply's JSON order), and an error record sorted.
func TestTemplatesSeeOutputsInTheirOrder(t *testing.T) {
	fields := map[string]any{"confidence": "0.9", "internal_reasoning": "why", "zeta": 1, "alpha": map[string]any{"y": 1, "x": 2}}
	usage := spend.Usage{PromptTokens: 1, CompletionTokens: 2}
	metrics := "'_metrics': {'completion_tokens': 2, 'prompt_tokens': 1, 'total_tokens': 3}"
	for _, tc := range []struct {
		name string
		out  agents.Output
		want string
	}{
		{"OrKa's order, other keys sorted", agents.Output{Response: "r", Fields: fields, Prompt: "p", Usage: usage},
			"{'response': 'r', 'confidence': '0.9', 'internal_reasoning': 'why', 'alpha': {'x': 2, 'y': 1}, 'zeta': 1, " + metrics + ", 'formatted_prompt': 'p'}"},
		{"the agent's order of its other keys", agents.Output{Response: "r", Fields: fields, Prompt: "p", Usage: usage,
			Order: &pyvalue.Order{Keys: []string{"confidence", "zeta", "alpha", "response"}, Sub: map[string]*pyvalue.Order{"alpha": {Keys: []string{"y", "x"}}}}},
			"{'confidence': '0.9', 'zeta': 1, 'alpha': {'y': 1, 'x': 2}, 'response': 'r', 'internal_reasoning': 'why', " + metrics + ", 'formatted_prompt': 'p'}"},
		{"only OrKa's keys", agents.Output{Response: "r\nnext", Fields: map[string]any{"confidence": "0.5", "internal_reasoning": ""}},
			`{'response': 'r\nnext', 'confidence': '0.5', 'internal_reasoning': ''}`},
		{"a shape in its order", agents.Output{Response: "answer", Shape: map[string]any{"b": 1, "a": 2, "c": 3},
			Order: &pyvalue.Order{Keys: []string{"c", "a"}}}, "{'c': 3, 'a': 2, 'b': 1}"},
		{"an error record", agents.Output{Err: "boom"}, "{'error': 'boom', 'result': None, 'status': 'error'}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := prompt.Parse("t", "{{ previous_outputs.a }}", prompt.Options{})
			require.NoError(t, err)
			in := agents.Input{Previous: (*agents.Outputs)(nil).With("a", tc.out)}
			got, err := in.Render(tpl)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			// the order holds for every way of reading the mapping
			all, err := prompt.Parse("t", "{{ previous_outputs }}{{ get_agent_response('a') }}", prompt.Options{})
			require.NoError(t, err)
			got, err = in.Render(all)
			require.NoError(t, err)
			assert.Contains(t, got, "{'a': "+tc.want+"}")
		})
	}
}
