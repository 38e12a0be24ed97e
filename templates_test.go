package cogloop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTemplateProblemsAtLoadHaveFilePositions(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"include in a block scalar", `orchestrator: {id: w, agents: [a]}
agents:
  - id: a
    type: scripted
    responses: [x]
    prompt: |
      Hello
      {% include "/etc/passwd" %}
`, []string{"wf.yaml:8:7", "include", "not allowed"}},
		{"import in a quoted scalar", `orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: scripted, responses: [x], prompt: "hi {% import 'x' as y %}"}
`, []string{"wf.yaml:3:"}},
		{"unclosed expression", `orchestrator: {id: w, agents: [a]}
agents:
  - id: a
    type: scripted
    responses: [x]
    prompt: |
      line one
      line two {{ previous_outputs.x.response
`, []string{"wf.yaml:8:", `agent "a": prompt template`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cogloop.Parse([]byte(tc.src), "wf.yaml")
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// A model reply is data: template syntax inside it reaches the next prompt
// literally and is never rendered.
func TestModelRepliesAreNeverRendered(t *testing.T) {
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: w, agents: [a, b]}
agents:
  - {id: a, type: scripted, prompt: "go", responses: ["{{ 7*7 }} and {% include '/etc/passwd' %} and {{ get_input() }}"]}
  - {id: b, type: scripted, prompt: "Got: {{ previous_outputs.a.response }}", responses: [ok]}
`), "wf.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	_, err = wf.Run(context.Background(), "topic", cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	var prompt string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && e.Agent == "b" {
			prompt = e.Prompt
		}
	}
	assert.Equal(t, "Got: {{ 7*7 }} and {% include '/etc/passwd' %} and {{ get_input() }}", prompt)
}

func TestStrictTemplates(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a], strict_templates: STRICT}
agents:
  - {id: a, type: scripted, prompt: "value: {{ previous_outputs.nobody.response }}", responses: [ok]}
`
	lax, err := cogloop.Parse([]byte(strings.Replace(src, "STRICT", "false", 1)), "wf.yaml")
	require.NoError(t, err)
	res, err := lax.Run(context.Background(), "x")
	require.NoError(t, err)
	a, _ := res.Outputs.Get("a")
	assert.Equal(t, "value: ", a.Prompt, "missing names render empty, as in OrKa")

	strict, err := cogloop.Parse([]byte(strings.Replace(src, "STRICT", "true", 1)), "wf.yaml")
	require.NoError(t, err)
	res, err = strict.Run(context.Background(), "x")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	a, _ = res.Outputs.Get("a")
	require.True(t, a.Failed())
	assert.Contains(t, a.Err, "nobody")
}
