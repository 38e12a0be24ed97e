package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

const judgeSchema = `
output_schema:
  type: object
  properties:
    score: {type: number, minimum: 0, maximum: 1}
    reason: {type: string}
  required: [score, reason]
`

// TestStructuredOutputRepairRound: over the OpenAI wire protocol, a reply
// that breaks the schema goes back with the violation, the repaired reply's
// fields land in the output, and usage sums both rounds.
func TestStructuredOutputRepairRound(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch n {
		case 1:
			agenttest.WriteChatReply(w, "```json\n{\"score\": \"high\", \"reason\": \"fine\"}\n```", 10, 5)
		default:
			agenttest.WriteChatReply(w, `{"score": 0.82, "reason": "clear and correct"}`, 30, 7)
		}
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
id: judge
type: openai-answer
model: gpt-test
model_url: `+srv.URL+`
prompt: "Judge: {{ input }}"
`+judgeSchema)
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, 0.82, out.Fields["score"])
	assert.Equal(t, "clear and correct", out.Fields["reason"])
	assert.Equal(t, map[string]any{"score": 0.82, "reason": "clear and correct"}, out.Response, "no response field: the object is the response")
	assert.Equal(t, spend.Usage{PromptTokens: 40, CompletionTokens: 12}, out.Usage, "usage sums both rounds")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, map[string]any{"type": "json_object"}, reqs[0].Body["response_format"], "OpenAI's JSON mode")
	first := messagesOf(t, reqs[0])
	require.Len(t, first, 1)
	assert.Contains(t, first[0]["content"], "valid against this JSON Schema")
	assert.Contains(t, first[0]["content"], `"minimum": 0`)
	second := messagesOf(t, reqs[1])
	require.Len(t, second, 3, "prompt, the failed reply, the repair request")
	assert.Equal(t, "assistant", second[1]["role"])
	assert.Contains(t, second[1]["content"], `"score": "high"`)
	assert.Equal(t, "user", second[2]["role"])
	assert.Contains(t, second[2]["content"], "at $.score: got string, want number")
}

// TestStructuredOutputFailsAfterMaxRepairs: a model that never matches fails
// the call after max_repairs repair rounds, naming the first violation and
// its JSON path.
func TestStructuredOutputFailsAfterMaxRepairs(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, `{"score": 1.5, "reason": "too generous"}`, 1, 1)
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
id: judge
type: openai-answer
model: gpt-test
model_url: `+srv.URL+`
prompt: "Judge: {{ input }}"
max_repairs: 1
`+judgeSchema)
	rec := &recorder{}
	out, err := a.Run(context.Background(), input(rec))
	require.Error(t, err)
	var repairs []event.Event
	for _, e := range rec.Events() {
		if e.Kind == event.OutputRepair {
			repairs = append(repairs, e)
		}
	}
	require.Len(t, repairs, 1, "one event per repair round")
	assert.Equal(t, "judge", repairs[0].Agent)
	assert.Equal(t, "at $.score: maximum: got 1.5, want 1", repairs[0].Message)
	assert.Equal(t, map[string]any{"round": 1, "max_repairs": 1, "path": "$.score"}, repairs[0].Data)
	assert.Contains(t, err.Error(), "the reply does not match output_schema (1 repair rounds tried, max_repairs): at $.score: maximum: got 1.5, want 1")
	assert.Len(t, srv.Requests(), 2, "the first call and one repair")
	assert.Equal(t, spend.Usage{PromptTokens: 2, CompletionTokens: 2}, out.Usage)
}

// TestStructuredOutputBudgetReservesEachRound: every repair round reserves
// its worst case, so a budget that holds one round refuses the repair.
func TestStructuredOutputBudgetReservesEachRound(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, `not json`, 10, 300)
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
id: judge
type: openai-answer
model: gpt-test
model_url: `+srv.URL+`
prompt: "Judge"
max_tokens: 100
`+judgeSchema)
	in := input(nil)
	in.Budget = spend.NewBudget(spend.Limit{MaxTokens: 400}, nil)
	_, err := a.Run(context.Background(), in)
	require.ErrorIs(t, err, spend.ErrBudgetExceeded)
	assert.Len(t, srv.Requests(), 1, "the repair round did not fit")
	assert.Equal(t, 310, in.Budget.Spent().Total(), "310 spent + the repair's 100 tokens of completion alone > 400")
}

func TestStructuredOutputKinds(t *testing.T) {
	for _, tc := range []struct {
		typ, reply string
		want       any
	}{
		{"openai-binary", `{"result": true, "reasoning": "yes"}`, true},
		{"openai-binary", `{"result": "false"}`, false},
		{"openai-answer", "<think>hm</think>{\"response\": \"Paris\", \"confidence\": 0.9}", "Paris"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
				agenttest.WriteChatReply(w, tc.reply, 1, 1)
			})
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
type: `+tc.typ+`
model: gpt-test
model_url: `+srv.URL+`
prompt: "Q"
output_schema: {type: object}
`)
			out, err := a.Run(context.Background(), input(nil))
			require.NoError(t, err)
			assert.Equal(t, tc.want, out.Response)
			prompt := messagesOf(t, srv.Requests()[0])[0]["content"].(string)
			assert.NotContains(t, prompt, "Answer with only true or false", "the schema's instructions replace the type's")
		})
	}
}

// TestOrkaStructuredOutput: OrKa's params.structured_output maps onto an
// output schema; mode prompt leaves the provider's JSON mode off.
func TestOrkaStructuredOutput(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch n {
		case 1:
			agenttest.WriteChatReply(w, `{"summary": "s", "word_count": "many"}`, 1, 1)
		default:
			agenttest.WriteChatReply(w, `{"summary": "short", "word_count": 2, "key_points": ["a"]}`, 1, 1)
		}
	})
	a, probs := build(t, llm.Options{Getenv: env()}, `
type: local_llm
prompt: "Summarize: {{ input }}"
params:
  provider: lm_studio
  model: any
  model_url: `+srv.URL+`
  structured_output:
    enabled: true
    mode: prompt
    coerce_types: true
    schema:
      required: [summary]
      optional: {key_points: array, word_count: integer}
`)
	require.NoError(t, probs.Err())
	require.Len(t, probs.Warnings(), 1)
	assert.Contains(t, probs.Warnings()[0].Error(), "coerce_types is accepted for OrKa compatibility and ignored")
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, "short", out.Fields["summary"])
	assert.Equal(t, 2, out.Fields["word_count"])
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Nil(t, reqs[0].Body["response_format"], "mode prompt: no JSON mode")
	assert.Contains(t, messagesOf(t, reqs[1])[2]["content"], "at $.word_count: got string, want integer")
}

func TestStructuredOutputLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"bad schema", "output_schema: {type: object, properties: {score: {type: numbr}}}\n", `wf.yaml:4:1: agent "x": output_schema is not a valid JSON Schema at /properties/score/type`},
		{"not object", "output_schema: {type: string}\n", "output_schema must describe a JSON object"},
		{"list", "output_schema: [a]\n", "output_schema must be a JSON Schema object"},
		{"max_repairs", "output_schema: {type: object}\nmax_repairs: -1\n", "max_repairs must be between 0 and 20"},
		{"both", "output_schema: {type: object}\nstructured_output: {enabled: true}\n", "give output_schema or OrKa's structured_output, not both"},
		{"orka mode", "structured_output: {enabled: true, mode: tool_cal}\n", `mode "tool_cal" is not one of auto, model_json, tool_call, prompt (did you mean "tool_call"?)`},
		{"orka key", "structured_output: {enabled: true, shema: {}}\n", `did you mean "schema"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := build(t, llm.Options{Getenv: env()}, "type: openai-answer\nmodel: m\nprompt: p\n"+tc.src)
			require.Error(t, probs.Err())
			assert.Contains(t, probs.Err().Error(), tc.want)
		})
	}
	_, probs := build(t, llm.Options{Getenv: env()}, "type: openai-answer\nmodel: m\nprompt: p\nstructured_output: {enabled: false, mode: prompt}\n")
	require.NoError(t, probs.Err())
	assert.Empty(t, probs.Warnings(), "a disabled structured_output is understood, not warned about")
}

// TestStructuredOutputOnValidateAndStructure: validate_and_structure's call
// takes output_schema too; the validated object is what it structures.
func TestStructuredOutputOnValidateAndStructure(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch n {
		case 1:
			agenttest.WriteChatReply(w, `{"valid": "yes", "reason": "ok"}`, 1, 1)
		default:
			agenttest.WriteChatReply(w, `{"valid": true, "reason": "ok", "memory_object": {"fact": "tides"}}`, 1, 1)
		}
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k")}, `
type: validate_and_structure
model: gpt-test
model_url: `+srv.URL+`
prompt: "Validate: {{ input }}"
output_schema:
  type: object
  properties: {valid: {type: boolean}, reason: {type: string}, memory_object: {type: object}}
  required: [valid, reason]
`)
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, true, out.Fields["valid"])
	assert.Equal(t, map[string]any{"fact": "tides"}, out.Fields["memory_object"])
	require.Len(t, srv.Requests(), 2, "the boolean given as text was repaired")
}
