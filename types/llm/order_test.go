package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/types/llm"
)

// A structured reply's fields reach templates in the reply's own key order,
// nested objects too (OrKa keeps the parsed JSON object as it came); a plain
// reply's output is in OrKa's order.
func TestTemplatesSeeTheReplyOrder(t *testing.T) {
	for _, tc := range []struct {
		name, schema, reply, want string
	}{
		{"structured", "output_schema: {type: object, properties: {score: {type: number}, reason: {type: string}, detail: {type: object}}, required: [score]}\n",
			`{"reason": "clear", "score": 0.82, "detail": {"z": 1, "a": [{"y": 1, "b": 2}]}}`,
			"{'reason': 'clear', 'score': 0.82, 'detail': {'z': 1, 'a': [{'y': 1, 'b': 2}]}, " +
				"'response': {'reason': 'clear', 'score': 0.82, 'detail': {'z': 1, 'a': [{'y': 1, 'b': 2}]}}, " +
				"'confidence': '0.5', 'internal_reasoning': '', '_metrics': {'completion_tokens': 5, 'prompt_tokens': 10, 'total_tokens': 15}, " +
				"'formatted_prompt': "},
		{"plain", "", "Paris.\nSure.",
			"{'response': 'Paris.\\nSure.', 'confidence': '0.5', 'internal_reasoning': '', '_metrics': {'completion_tokens': 5, 'prompt_tokens': 10, 'total_tokens': 15}, 'formatted_prompt': 'Judge: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				agenttest.WriteChatReply(w, tc.reply, 10, 5)
			})
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
id: judge
type: openai-answer
model: gpt-test
model_url: `+srv.URL+`
prompt: "Judge: {{ input }}"
`+tc.schema)
			out, err := a.Run(context.Background(), input(nil))
			require.NoError(t, err)
			tpl, err := prompt.Parse("next", "{{ previous_outputs.judge }}", prompt.Options{})
			require.NoError(t, err)
			got, err := agents.Input{Previous: (*agents.Outputs)(nil).With("judge", out)}.Render(tpl)
			require.NoError(t, err)
			assert.Contains(t, got, tc.want)
		})
	}
}
