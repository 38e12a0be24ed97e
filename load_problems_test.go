package cogloop_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/load"
)

// A file with errors shows its warnings too, so one validate shows everything.
func TestLoadErrorCarriesTheWarnings(t *testing.T) {
	src := `orchestrator: {id: demo, agents: [writer, editor]}
agents:
  - {id: writer, type: openai-answer, prompt: "Write about {{ get_inptu() }}"}
  - {id: editor, type: openai-answer, prompt: "Edit {{ previous_outputs.writr.response }}"}
`
	_, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.Error(t, err)
	var le *load.Error
	require.True(t, errors.As(err, &le))
	require.Len(t, le.Problems, 1)
	require.Len(t, le.Warnings, 1)
	assert.Equal(t, `wf.yaml:3:63: agent "writer": prompt template: undefined function get_inptu(); did you mean get_input?
warning: wf.yaml:4:73: agent "editor": prompt template: previous_outputs has no "writr" here: no agent "writr" can have run before this one; did you mean writer?`, err.Error())
}
