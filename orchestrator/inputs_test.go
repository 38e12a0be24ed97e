package orchestrator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const inputsWorkflow = `orchestrator:
  id: w
  description: " Says hello. "
  inputs:
    - {name: who, required: true, description: whom to greet}
    - {name: times, type: integer, default: 2}
  agents: [a]
agents:
  - {id: a, type: echo}
`

// inputs: gives the run's input a schema; a missing required input is an
// error naming it, defaults fill in the others.
func TestDeclaredInputs(t *testing.T) {
	w := mustParse(t, inputsWorkflow)
	assert.Equal(t, "Says hello.", w.Description)
	assert.Equal(t, map[string]any{"type": "object", "required": []any{"who"}, "properties": map[string]any{
		"who":   map[string]any{"type": "string", "description": "whom to greet"},
		"times": map[string]any{"type": "integer", "default": 2},
	}}, w.InputSchema())

	in, err := w.BindInputs(map[string]any{"who": "Ada"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"who": "Ada", "times": 2}, in)
	_, err = w.BindInputs(map[string]any{"times": 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `workflow "w": required input "who" is missing (declared at wf.yaml:5:7)`)
	_, err = w.BindInputs("just text")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `declares inputs (who, times), so its input is a JSON object with those fields, not the text "just text"`)

	plain := mustParse(t, "orchestrator: {id: p, agents: [a]}\nagents: [{id: a, type: echo}]\n")
	assert.Nil(t, plain.InputSchema())
	in, err = plain.BindInputs("just text")
	require.NoError(t, err)
	assert.Equal(t, "just text", in)
}

func TestDeclaredInputsErrors(t *testing.T) {
	for _, tc := range []struct{ name, inputs, want string }{
		{"not a list", "{who: x}", "wf.yaml:2:3: workflow: orchestrator: inputs must be a list"},
		{"bad name", "[{name: 1who}]", `name must be a variable name (a letter or _, then letters, digits, _), not "1who"`},
		{"twice", "[{name: a}, {name: a}]", `inputs: "a" is declared twice`},
		{"bad type", "[{name: a, type: text}]", `type of "a" must be one of string, number, integer, boolean, object, array, not "text"`},
		{"required and default", "[{name: a, required: true, default: x}]", `input "a" is required and has a default; give one of them`},
		{"unknown key", "[{name: a, requird: true}]", `unknown key "requird"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parse(t, "orchestrator: {id: w, agents: [a],\n  inputs: "+tc.inputs+"}\nagents: [{id: a, type: echo}]\n")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
