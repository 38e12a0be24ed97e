package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const preflightWorkflow = `orchestrator: {id: pf, agents: [l, local]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    score_from: critic
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - {id: writer, type: openai-answer, model: gpt-4o-mini, prompt: "write"}
        - {id: critic, type: openai-answer, model: gpt-4o-mini, prompt: "rate SCORE:"}
  - {id: local, type: local_llm, provider: ollama, model: llama3, model_url: "http://127.0.0.1:11434", prompt: "x"}
`

// Issue 32 item 17: validate warns, before anything runs, that the agents
// whose key is not in the environment will fail; run does not (it fails
// naming the key), and a set key or a keyless provider says nothing.
func TestValidatePreflightNamesMissingKeys(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", preflightWorkflow)
	t.Setenv("OPENAI_API_KEY", "")
	code, out, errs := runCLI(t, "validate", wf)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ok")
	assert.Contains(t, errs, "warning: OPENAI_API_KEY is not set; agents writer, critic will fail\n")
	assert.NotContains(t, errs, "local", "ollama needs no key")

	code, _, errs = runCLI(t, "validate", wf, "--strict")
	assert.Equal(t, 0, code, "the environment, not the file: a warning under --strict too: %s", errs)
	assert.Contains(t, errs, "OPENAI_API_KEY is not set")

	t.Setenv("OPENAI_API_KEY", "sk-test")
	code, _, errs = runCLI(t, "validate", wf)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "is not set")
}

const fieldTypoWorkflow = `orchestrator: {id: ft, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    stop_when: {until: "previous_outputs.review.aproved == true"}
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, review]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "write"}
        - id: review
          type: openai-answer
          model: m
          prompt: "review {{ previous_outputs.writer.response }}"
          output_schema:
            type: object
            properties: {approved: {type: boolean}, comment: {type: string}}
            required: [approved]
`

// Issue 32 item 1: validate warns, at the condition, about a field no
// declared output can have (a typo of an output_schema property); a field
// the schema declares, and an agent whose schema allows more, are not.
func TestValidateWarnsAboutUndeclaredConditionFields(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", fieldTypoWorkflow)
	code, _, errs := runCLI(t, "validate", wf)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `wf.yaml:6:`)
	assert.Contains(t, errs, `loop "l" until reads previous_outputs.review.aproved, a field agent "review" cannot have: its output_schema declares approved, comment; did you mean "approved"?`)
	code, _, errs = runCLI(t, "validate", wf, "--strict")
	assert.Equal(t, 2, code, "a warning, so an error under --strict: %s", errs)

	cw := strings.Replace(fieldTypoWorkflow, `{until: "previous_outputs.review.aproved == true"}`, `{continue_while: {output: review.commnt, operator: "==", value: ""}}`, 1)
	code, _, errs = runCLI(t, "validate", writeFile(t, dir, "cw.yaml", cw))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `loop "l" continue_while reads previous_outputs.review.commnt`)

	for name, src := range map[string]string{
		"declared": strings.Replace(fieldTypoWorkflow, "aproved", "approved", 1),
		"open":     strings.Replace(fieldTypoWorkflow, "required: [approved]", "required: [approved]\n            additionalProperties: true", 1),
	} {
		code, _, errs := runCLI(t, "validate", writeFile(t, dir, name+".yaml", src))
		require.Equal(t, 0, code, errs)
		assert.NotContains(t, errs, "cannot have", name)
	}
}
