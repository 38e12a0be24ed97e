package agents_test

import (
	"errors"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/prompt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustParse(t *testing.T, name, src string) *prompt.Template {
	t.Helper()
	tp, err := prompt.Parse(name, src, prompt.Options{})
	require.NoError(t, err)
	return tp
}

func warnings(rec *agenttest.Recorder) []event.Event {
	var out []event.Event
	for _, e := range rec.Events() {
		if e.Kind == event.Warning {
			out = append(out, e)
		}
	}
	return out
}

func TestRenderWarnsOncePerAgentAndName(t *testing.T) {
	rec := &agenttest.Recorder{}
	run := &agents.Run{ID: "r", Observe: rec.Observe}
	tp := mustParse(t, `agent "writer" prompt`, "{{ topic }} {{ topic }} {{ tone }} {{ extra | default('-') }} {{ input }}")
	for _, path := range []string{"improve › iteration 1 › writer", "improve › iteration 2 › writer", "critic"} {
		out, err := agents.Input{Value: "x", Path: path, Run: run}.Render(tp)
		require.NoError(t, err)
		assert.Equal(t, "   - x", out, "undefined names render empty")
	}
	ws := warnings(rec)
	require.Len(t, ws, 4, "topic and tone once for writer (two passes), once for critic")
	assert.Equal(t, "improve › iteration 1 › writer", ws[0].Node)
	assert.Equal(t, "writer", ws[0].Agent)
	assert.Equal(t, `agent "writer" prompt: undefined variable "topic" renders empty`, ws[0].Message)
	assert.Equal(t, map[string]any{"code": "undefined_name", "name": "topic", "template": `agent "writer" prompt`}, ws[0].Data)
	assert.Equal(t, "tone", ws[1].Data["name"])
	assert.Equal(t, []string{"critic", "critic"}, []string{ws[2].Agent, ws[3].Agent})

	// a name the call binds is no warning
	_, err := agents.Input{Path: "other", Run: run, Vars: map[string]any{"topic": "t", "tone": "dry"}}.Render(tp)
	require.NoError(t, err)
	assert.Len(t, warnings(rec), 4)
}

func TestRenderStrictFailsOnUndefinedNames(t *testing.T) {
	rec := &agenttest.Recorder{}
	run := &agents.Run{ID: "r", Observe: rec.Observe, Strict: true}
	tp := mustParse(t, `agent "writer" prompt`, "About {{ topic }}")
	for range 2 {
		_, err := agents.Input{Path: "writer", Run: run}.Render(tp)
		require.Error(t, err, "every render fails under strict mode")
		assert.True(t, errors.Is(err, agents.ErrStrict))
		assert.Equal(t, `writer: warning treated as an error (strict mode): agent "writer" prompt: undefined variable "topic" renders empty`, err.Error())
	}
	assert.Len(t, warnings(rec), 1, "the warning event is emitted once")
}

func TestRenderUndefinedFunctionIsFatal(t *testing.T) {
	cases := []struct{ src, want string }{
		{"{{ get_inptu() }}", `render template "t" line 1: get_inptu is not callable (did you mean get_input?)`},
		{"{{ input | truncat(3) }}", `render template "t" line 1: filter 'truncat' not found (did you mean truncate?)`},
		{"{{ input is strng }}", `render template "t" line 1: test 'strng' not found (did you mean string?)`},
		{"{{ zzzzzz() }}", `render template "t" line 1: zzzzzz is not callable (no template function, filter or test has that name; see the template helpers in the README)`},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			_, err := agents.Input{Value: "x", Path: "a"}.Render(mustParse(t, "t", tc.src))
			require.Error(t, err)
			assert.True(t, fault.IsFatal(err))
			assert.Equal(t, tc.want, err.Error())
		})
	}
	// other render failures are not fatal
	_, err := agents.Input{Value: "x"}.Render(mustParse(t, "t", "{{ 1 / 0 }}"))
	require.Error(t, err)
	assert.False(t, fault.IsFatal(err))
}
