package orchestrator

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A template's parse warnings (prompt.Template.Warnings) are load warnings at
// their place in the file; strict makes them errors.
func TestTemplateWarningsAreLoadWarnings(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a]STRICT}
agents:
  - id: a
    type: echo
    prompt: |
      Past:
      {% for loop in get_past_loops() %}{{ loop.score }}{% endfor %}
`
	w, warns, err := parse(t, strings.Replace(src, "STRICT", "", 1))
	require.NoError(t, err)
	require.NotNil(t, w)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Error(), "wf.yaml:7:7")
	assert.Contains(t, warns[0].Error(), "Jinja2 rejects this template")

	_, _, err = parse(t, strings.Replace(src, "STRICT", ", strict: true", 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wf.yaml:7:7")
}
