package llm_test

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

func TestParseReply(t *testing.T) {
	cases := []struct {
		name, in                    string
		resp, confidence, reasoning string
	}{
		{"plain text", "  Paris is the capital.\n", "Paris is the capital.", llm.DefaultConfidence, ""},
		{"envelope", `{"response": "Paris", "confidence": "0.9", "internal_reasoning": "known fact"}`, "Paris", "0.9", "known fact"},
		{"numeric confidence keeps its form", `{"response": "Paris", "confidence": 1.0}`, "Paris", "1.0", ""},
		{"fenced envelope", "Here you go:\n```json\n{\"response\": \"SCORE: 0.8\", \"confidence\": 0.7}\n```\nthanks", "SCORE: 0.8", "0.7", ""},
		{"envelope inside prose", `Sure! {"response": "yes", "internal_reasoning": "r"} Done.`, "yes", llm.DefaultConfidence, "r"},
		{"think block", "<think>\nlet me see\n</think>\nThe answer is 4.", "The answer is 4.", llm.DefaultConfidence, "let me see"},
		{"think then envelope", "<think>hmm</think>{\"response\": \"4\"}", "4", llm.DefaultConfidence, "hmm"},
		{"JSON without response stays text", `{"answer": 4}`, `{"answer": 4}`, llm.DefaultConfidence, ""},
		{"non-string response", `{"response": {"a": 1}}`, `{"a":1}`, llm.DefaultConfidence, ""},
		{"broken JSON stays text", `{"response": "x"`, `{"response": "x"`, llm.DefaultConfidence, ""},
		{"the word response without an object", "My response is: yes", "My response is: yes", llm.DefaultConfidence, ""},
		{"an unclosed think block stays text", "<think>hmm, yes", "<think>hmm, yes", llm.DefaultConfidence, ""},
		{"think is case-sensitive", "<THINK>x</THINK> yes", "<THINK>x</THINK> yes", llm.DefaultConfidence, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, c, why := llm.ParseReply(tc.in)
			assert.Equal(t, tc.resp, r)
			assert.Equal(t, tc.confidence, c)
			assert.Equal(t, tc.reasoning, why)
		})
	}
}

func TestAffirmative(t *testing.T) {
	for in, want := range map[string]bool{
		"Yes.": true, "TRUE": true, "That is correct": true, "you are right": true, "Affirmative!": true,
		"true\n\nBecause …": true, "no": false, "false": false, "incorrect": false, "bright idea": false,
		"untrue": false, "yesterday": false, "": false,
	} {
		assert.Equal(t, want, llm.Affirmative(in), "%q", in)
	}
}

// TestRunModelsOverride: with the run's model source (--script) no key, model or
// server is needed; binary and classification shape the reply.
func TestRunModelsOverride(t *testing.T) {
	s := agenttest.Script(t, `
judge: ["Yes, it is.", "Nope", "{\"response\": \"true\", \"confidence\": \"0.95\"}"]
router: ["billing", "I think this is a Technical_Issue.", "Probably billing or refund", "no idea", "'refund'."]
writer: [{text: "A draft", usage: {prompt_tokens: 9, completion_tokens: 3}}]
`)
	o := llm.Options{Getenv: env()}
	run := &agents.Run{ID: "r", Models: s}
	in := agents.Input{Value: "q", Run: run}

	judge := mustBuild(t, o, "id: judge\ntype: openai-binary\nprompt: Is it fine?\n")
	var got []any
	for range 3 {
		out, err := judge.Run(context.Background(), in)
		require.NoError(t, err)
		got = append(got, out.Response)
		assert.Equal(t, "Is it fine?\n\nAnswer with only true or false.", out.Prompt)
	}
	assert.Equal(t, []any{true, false, true}, got)

	router := mustBuild(t, o, "id: router\ntype: openai-classification\noptions: [billing, technical_issue, refund]\nprompt: Classify\n")
	got = nil
	for range 5 {
		out, err := router.Run(context.Background(), in)
		require.NoError(t, err)
		got = append(got, out.Response)
		assert.Contains(t, out.Prompt, "billing, technical_issue, refund")
	}
	assert.Equal(t, []any{"billing", "technical_issue", "billing", llm.NotClassified, "refund"}, got)

	writer := mustBuild(t, o, "id: writer\ntype: local_llm\nprovider: ollama\nprompt: Write\n")
	out, err := writer.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "A draft", out.Response)
	assert.Equal(t, spend.Usage{PromptTokens: 9, CompletionTokens: 3}, out.Usage)
	assert.Equal(t, "Write", out.Prompt)

	_, err = writer.Run(context.Background(), in)
	require.ErrorIs(t, err, scripted.ErrExhausted)
	assert.Contains(t, err.Error(), `agent "writer"`)

	other := mustBuild(t, o, "id: other\ntype: openai-answer\nprompt: x\n")
	_, err = other.Run(context.Background(), in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `no replies for agent "other"`)
}

func TestScriptedErrorReplyGoesThroughRetries(t *testing.T) {
	s := agenttest.Script(t, `
w:
  - {error: "overloaded", status: 503}
  - {error: "slow down", status: 429, retry_after: 4s}
  - fine
`)
	sl := &fakeSleep{}
	rec := &recorder{}
	a := mustBuild(t, llm.Options{Getenv: env(), Sleep: sl.Sleep, Rand: func() float64 { return 0 }}, "id: w\ntype: llm\nprovider: ollama\nmodel: m\nprompt: p\n")
	in := input(rec)
	in.Run.Models = s
	out, err := a.Run(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, "fine", out.Response)
	require.Len(t, rec.Events(), 2)
	assert.GreaterOrEqual(t, sl.Waits()[1].Seconds(), 4.0)
}

func TestScriptedType(t *testing.T) {
	o := llm.Options{Getenv: env()}
	a := mustBuild(t, o, `
id: critic
type: scripted
prompt: Judge the draft
responses:
  - "SCORE: 0.5"
  - {text: "SCORE: 0.9", usage: {prompt_tokens: 4, completion_tokens: 2}}
`)
	s := agenttest.Script(t, "critic: [from the script]\n")
	run1 := &agents.Run{ID: "1", Models: s}
	out, err := a.Run(context.Background(), agents.Input{Run: run1})
	require.NoError(t, err)
	assert.Equal(t, "SCORE: 0.5", out.Response, "the run's models are ignored")
	assert.Equal(t, "Judge the draft", out.Prompt)
	out, err = a.Run(context.Background(), agents.Input{Run: run1})
	require.NoError(t, err)
	assert.Equal(t, "SCORE: 0.9", out.Response)
	assert.Equal(t, spend.Usage{PromptTokens: 4, CompletionTokens: 2}, out.Usage)
	_, err = a.Run(context.Background(), agents.Input{Run: run1})
	require.ErrorIs(t, err, scripted.ErrExhausted)
	assert.Contains(t, err.Error(), `agent "critic"`)
	assert.Contains(t, err.Error(), "2 in its responses")

	// Another run of the same workflow starts from the first reply again, even
	// while the first run goes on, and concurrently.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := &agents.Run{ID: "n"}
			out, err := a.Run(context.Background(), agents.Input{Run: run})
			assert.NoError(t, err)
			assert.Equal(t, "SCORE: 0.5", out.Response)
		}()
	}
	wg.Wait()
	runtime.GC()

	cyc := mustBuild(t, o, "id: c\ntype: scripted\nresponses: {cycle: [a, b]}\n")
	var got []any
	for range 3 {
		out, err := cyc.Run(context.Background(), agents.Input{Run: run1})
		require.NoError(t, err)
		got = append(got, out.Response)
	}
	assert.Equal(t, []any{"a", "b", "a"}, got)
}

func TestParamsNestingAndAliases(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		ollamaOK(w, body, `{"response": "ok"}`, 1, 1)
	})
	a, probs := build(t, llm.Options{Getenv: env()}, `
id: x
type: local_llm
prompt: hi
queue: orka:x
params:
  provider: ollama
  model: phi3
  url: `+srv.URL+`
  structured_output: {enabled: true}
`)
	require.NoError(t, probs.Err())
	var warns []string
	for _, w := range probs.Warnings() {
		warns = append(warns, w.Error())
	}
	require.Len(t, warns, 1, "structured_output is supported: no warning")
	assert.Contains(t, warns[0], "wf.yaml:4:1:")
	assert.Contains(t, warns[0], "queue is accepted for OrKa compatibility and ignored")

	out, err := a.Run(context.Background(), input(nil))
	require.NoError(t, err)
	assert.Equal(t, "ok", out.Response)
	assert.Equal(t, "phi3", srv.Requests()[0].Body["model"])
	assert.Equal(t, "json", srv.Requests()[0].Body["format"], "Ollama's JSON mode")
}

func TestFactoryProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"local_llm needs a provider", "type: local_llm\nprompt: p\n", []string{`wf.yaml:1:1: agent "x": provider is required (ollama, lm_studio, openai_compatible)`}},
		{"local_llm provider", "type: local_llm\nprovider: anthropic\nprompt: p\n", []string{`wf.yaml:3:1: agent "x": local_llm takes provider ollama, lm_studio, openai_compatible, not "anthropic"`}},
		{"unknown provider", "type: llm\nprovider: bard\nmodel: m\nprompt: p\n", []string{`wf.yaml:3:1:`, `unknown provider "bard"`}},
		{"llm needs a model", "type: llm\nprovider: anthropic\nprompt: p\n", []string{`model is required for provider anthropic`}},
		{"bad url", "type: local_llm\nprovider: ollama\nmodel_url: localhost:11434\nprompt: p\n", []string{`wf.yaml:4:1:`, `must start with http`}},
		{"openai_compatible url", "type: local_llm\nprovider: openai_compatible\nprompt: p\n", []string{`wf.yaml:3:1:`, `needs model_url`}},
		{"url and model_url", "type: local_llm\nprovider: ollama\nmodel_url: http://a\nurl: http://b\nprompt: p\n", []string{`wf.yaml:5:1:`, `alias of model_url`}},
		{"values", "type: openai-answer\nprompt: p\ntemperature: 3\nmax_tokens: -1\ntimeout: soon\n", []string{
			`wf.yaml:4:1: agent "x": temperature must be between 0 and 2, not 3`,
			`wf.yaml:5:1: agent "x": max_tokens must be between 0 and`,
			`wf.yaml:6:1: agent "x": timeout: cannot read "soon"`}},
		{"unknown keys", "type: openai-answer\nprompt: p\npromt: q\nparams: {modle: m}\n", []string{ //nolint:misspell // the typo is the input under test
			`wf.yaml:4:1: agent "x": unknown key "promt" (did you mean "prompt"?)`,
			`wf.yaml:5:10: agent "x": params: unknown key "modle" (did you mean "model"?)`}}, //nolint:misspell // the typo is the input under test
		{"retry", "type: openai-answer\nprompt: p\nretry: {type: sometimes}\n", []string{`wf.yaml:4:9: agent "x": retry: type must be none, fixed or exponential`}},
		{"options on an answer agent", "type: openai-answer\nprompt: p\noptions: [a]\n", []string{`unknown key "options"`}},
		{"scripted needs responses", "type: scripted\nprompt: p\n", []string{`wf.yaml:1:1: agent "x": responses is required`}},
		{"scripted responses", "type: scripted\nresponses: [{txt: a}]\n", []string{`wf.yaml:3:14: agent "x": responses: reply 1: unknown key "txt" (did you mean "text"?)`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := build(t, llm.Options{Getenv: env()}, "id: x\n"+tc.src)
			err := probs.Err()
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestValidateNeedsNoKeys(t *testing.T) {
	for _, src := range []string{
		"type: openai-answer\nprompt: p\n",
		"type: llm\nprovider: anthropic\nmodel: claude\nprompt: p\n",
		"type: llm\nprovider: googleai\nmodel: gemini\nprompt: p\n",
		"type: openai-classification\ncategories: [a, b]\nprompt: p\n",
	} {
		_, probs := build(t, llm.Options{Getenv: env()}, "id: x\n"+src)
		assert.NoError(t, probs.Err(), src)
		assert.Empty(t, probs.Warnings(), src)
	}
}

func TestRetryOverride(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		openAIError(w, http.StatusInternalServerError, "boom")
	})
	sl := &fakeSleep{}
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k"), Sleep: sl.Sleep},
		"id: x\ntype: openai-answer\nmodel: m\nprompt: p\nmodel_url: "+srv.URL+"\nretry: {type: fixed, count: 1, interval: 250ms, jitter: none}\n")
	_, err := a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gave up after 2 attempts")
	assert.Len(t, srv.Requests(), 2)
	assert.Equal(t, "[250ms]", formatWaits(sl))

	none := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "k"), Sleep: sl.Sleep},
		"id: x\ntype: openai-answer\nmodel: m\nprompt: p\nmodel_url: "+srv.URL+"\nretry: none\n")
	_, err = none.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Len(t, srv.Requests(), 3)
}

func formatWaits(s *fakeSleep) string {
	w := s.Waits()
	out := "["
	for i, d := range w {
		if i > 0 {
			out += " "
		}
		out += d.String()
	}
	return out + "]"
}

func TestParamsKeysOrKaDropsLoadWithAWarning(t *testing.T) {
	_, probs := build(t, llm.Options{Getenv: env()},
		"id: x\ntype: openai-answer\nprompt: p\nparams:\n  temperature: 0.2\n  If FAIL, output: '{\"ok\": false}'\n")
	require.NoError(t, probs.Err())
	warns := probs.Warnings()
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Error(), `wf.yaml:6:3: agent "x": params: If FAIL, output is accepted for OrKa compatibility and ignored`)
}
