package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

// structureAgent builds a validate_and_structure agent talking to a loopback
// OpenAI server that answers reply.
func structureAgent(t *testing.T, extra, reply string) (agents.Agent, *server) {
	t.Helper()
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, reply, 10, 5)
	})
	o := llm.Options{Getenv: env("OPENAI_API_KEY", "sk-test", "OPENAI_BASE_URL", srv.URL+"/v1")}
	return mustBuild(t, o, "id: x\ntype: validate_and_structure\nmodel: gpt-test\n"+extra), srv
}

func userMessage(t *testing.T, req request) string {
	t.Helper()
	msgs := req.Body["messages"].([]any)
	return msgs[len(msgs)-1].(map[string]any)["content"].(string)
}

func TestValidateAndStructureAnswersOrKasShape(t *testing.T) {
	reply := "Here it is:\n```json\n{\"valid\": \"yes\", \"reason\": \"matches the context\", \"memory_object\": {\"fact\": \"Paris is the capital\", \"confidence\": 0.9}}\n```"
	a, srv := structureAgent(t, "prompt: \"Validate: {{ input }}\"\nstore_structure: '{\"fact\": \"string\"}'\n", reply)
	rec := &recorder{}
	out, err := a.Run(context.Background(), input(rec))
	require.NoError(t, err)

	m := out.Map()
	assert.Equal(t, true, m["valid"], "a string valid is coerced to a bool")
	assert.Equal(t, "matches the context", m["reason"])
	assert.Equal(t, map[string]any{"fact": "Paris is the capital", "confidence": 0.9}, m["memory_object"])
	assert.Equal(t, reply, m["raw_llm_output"])
	assert.Equal(t, m["valid"], m["response"].(map[string]any)["valid"], "response holds the same mapping")
	assert.Equal(t, spend.Usage{PromptTokens: 10, CompletionTokens: 5}, out.Usage)

	sent := userMessage(t, srv.Requests()[0])
	assert.Equal(t, sent, m["formatted_prompt"])
	assert.Contains(t, sent, "Validate: the topic\n\nStructure the memory object according to this template:\n{\"fact\": \"string\"}")
	assert.Contains(t, sent, "Return your response in the following JSON format:")
	assert.Contains(t, sent, "Do not include any other text outside the JSON.")
	assert.Empty(t, rec.Events(), "no warning for a parsed reply")
}

func TestValidateAndStructureKeepsAPromptThatAsksForTheShape(t *testing.T) {
	a, srv := structureAgent(t, "prompt: 'Answer {\"valid\": true, \"memory_object\": {}} about {{ input }}'\n", `{"valid": false}`)
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, `Answer {"valid": true, "memory_object": {}} about the topic`, userMessage(t, srv.Requests()[0]))
	m := out.Map()
	assert.Equal(t, false, m["valid"])
	assert.Equal(t, "No reason provided", m["reason"])
	assert.Nil(t, m["memory_object"])
}

func TestValidateAndStructureDefaultPromptReadsOrKasAgents(t *testing.T) {
	a, srv := structureAgent(t, "", `{"valid": true, "reason": "ok", "memory_object": null}`)
	in := input(nil)
	in.Previous = in.Previous.With("answer-builder", agents.Output{Response: "Paris"})
	_, err := a.Run(context.Background(), in)
	require.NoError(t, err)
	sent := userMessage(t, srv.Requests()[0])
	assert.Contains(t, sent, "Question: the topic\n\nContext: No context available\n\nAnswer to validate: Paris\n")
	assert.Contains(t, sent, "Please validate if the answer is correct and contextually coherent.")
	assert.Contains(t, sent, "- fact: The validated fact or information")
}

func TestValidateAndStructureReplyWithoutJSON(t *testing.T) {
	a, _ := structureAgent(t, "prompt: check {{ input }}\n", "I think it is fine.")
	rec := &recorder{}
	out, err := a.Run(context.Background(), input(rec))
	require.NoError(t, err, "OrKa answers valid: false rather than failing")
	m := out.Map()
	assert.Equal(t, false, m["valid"])
	assert.Contains(t, m["reason"], "Failed to parse JSON: no JSON object in the reply")
	require.Len(t, rec.Events(), 1)
	e := rec.Events()[0]
	assert.Equal(t, event.Warning, e.Kind)
	assert.Equal(t, "not_json", e.Data["code"])
	assert.Contains(t, e.Message, "I think it is fine.")

	strict := input(rec)
	strict.Run.Strict = true
	_, err = a.Run(context.Background(), strict)
	require.ErrorIs(t, err, agents.ErrStrict)
}

func TestValidateAndStructureReadsPythonishReplies(t *testing.T) {
	a, _ := structureAgent(t, "prompt: p\n", "{'valid': True, reason: 'ok',\n  // a note\n 'memory_object': {'fact': 'x'}}")
	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	m := out.Map()
	assert.Equal(t, true, m["valid"])
	assert.Equal(t, map[string]any{"fact": "x"}, m["memory_object"])
}

func TestValidateAndStructureLoadProblems(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"store_structure": {"type: validate_and_structure\nstore_structure: [a]\n", `wf.yaml:3:1: agent "x": store_structure must be text, not a list`},
		"unknown key":     {"type: validate_and_structure\nprompt: p\nstore_structur: s\n", `wf.yaml:4:1: agent "x": unknown key "store_structur" (did you mean "store_structure"?)`},
		"bad temperature": {"type: validate_and_structure\ntemperature: 9\n", `wf.yaml:3:1: agent "x": temperature must be between 0 and 2, not 9`},
	} {
		t.Run(name, func(t *testing.T) {
			_, probs := build(t, llm.Options{Getenv: env()}, "id: x\n"+tc.src)
			require.Error(t, probs.Err())
			assert.Contains(t, probs.Err().Error(), tc.want)
		})
	}
}

func TestClassificationWithoutOptionsWarnsAndAnswersNotClassified(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		agenttest.WriteChatReply(w, "science", 3, 1)
	})
	o := llm.Options{Getenv: env("OPENAI_API_KEY", "sk-test", "OPENAI_BASE_URL", srv.URL+"/v1")}
	a, probs := build(t, o, "id: x\ntype: openai-classification\nmodel: gpt-test\nprompt: Classify {{ input }}\n")
	require.NoError(t, probs.Err())
	require.Len(t, probs.Warnings(), 1)
	assert.Contains(t, probs.Warnings()[0].Error(), `wf.yaml:1:1: agent "x": no options (or categories): the agent can only answer not-classified`)

	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, llm.NotClassified, out.Response)
	assert.Equal(t, "Classify the topic\n\nNo options are given: answer not-classified.", userMessage(t, srv.Requests()[0]))
}
