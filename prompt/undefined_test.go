package prompt_test

import (
	"errors"
	"testing"

	"github.com/cogloop/cogloop/prompt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExprUndefined(t *testing.T) {
	d := prompt.Data{Input: "x", Previous: map[string]any{"review": map[string]any{"response": "ok"}},
		LoopNumber: 1, Vars: map[string]any{"score": 0.5}}
	tests := []struct {
		src  string
		want []string
	}{
		{"score > 0.3 and topic", []string{"topic"}},
		{"x if y else x", []string{"x", "y"}},
		{"previous_outputs.review.verdict == 'ok'", nil},
		{"previous_outputs[key].response", []string{"key"}},
		{"input.foo.bar(baz=qux)", []string{"qux"}},
		{"get_input() ~ nope | upper", []string{"nope"}},
		{"[a, {b: score}] | length", []string{"a", "b"}},
		{"nope is defined or nope2 is not defined", nil},
		{"nope | default(none)", nil},
		{"x if x is defined else 0", nil},
		{"(x if x is defined else 0) > (y or 1)", []string{"y"}},
		{"[1, 2] | first if z else w", []string{"z", "w"}},
		{"f(a if b else c)", []string{"a", "b", "c"}}, // an unknown function fails when called,
		{"true and True and none is none and loop_number", nil},
		{"range(3) | length > -h", []string{"h"}},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			e, err := prompt.ParseExpr("c", tc.src, prompt.Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, e.Undefined(d))
		})
	}
}

func TestRenderErrorMessage(t *testing.T) {
	e, err := prompt.ParseExpr("c", "topic.lower()", prompt.Options{})
	require.NoError(t, err)
	_, err = e.Eval(prompt.Data{})
	var re *prompt.RenderError
	require.True(t, errors.As(err, &re), "%v", err)
	assert.Equal(t, `cannot call method "lower" of an undefined value`, re.Message())
}
