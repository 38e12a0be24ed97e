package prompt

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bindData has more variables than the templates below read, and variables
// that collide with the fixed ones and with helpers.
func bindData(loop int) Data {
	return Data{
		Input:    map[string]any{"input": "task", "a": map[string]any{"b": 1}},
		Previous: map[string]any{"w": map[string]any{"response": "r", "n": nil}},
		Vars: map[string]any{
			"x": []any{"a", []any{1, 2}}, "y": 0, "z": "z", "s": "str", "score": 0.5,
			"input":            "shadowed by the fixed input",
			"previous_outputs": "shadowed too",
			"loop_number":      7, // visible only outside loops
			"get_input":        "a variable, not the helper",
			"insights":         "i", "improvements": "m", "mistakes": "k", "timestamp": "t",
		},
		LoopNumber:        loop,
		PastLoopsMetadata: map[string]any{"insights": "p"},
	}
}

var bindTemplates = []string{
	"{{ score }}", "{{ loop_number }}", "{{ input }}", "{{ input.input }}", "{{ previous_outputs.w.response }}",
	"{{ previous_outputs }}", "{{ past_loops_metadata.insights }}", "{{ get_input }}", "{{ get_loop_number() }}",
	"{{ missing }}", "{{ x[1][0] }}{{ y }}{{ z|upper }}", "{% for s in x %}{{ s }}{{ z }}{% endfor %}{{ s }}",
	"{% set z = 'set' %}{{ z }}{{ y }}", "{% macro m(a) %}{{ a }}{{ s }}{% endmacro %}{{ m(z) }}",
	"{% set ns = namespace(c=y) %}{% set ns.c = ns.c + 1 %}{{ ns.c }}", "{{ s if y else z }}",
	"{{ insights }} {{ improvements }} {{ mistakes }} {{ timestamp }}", "{{ x is defined }}{{ nope is defined }}",
	"{% if has_past_loops() %}{{ get_past_loops() }}{% endif %}{{ get_agent_response('w') }}",
}

// assertSameResults: got renders and evaluates d to what want gives, errors
// included.
func assertSameResults(t testing.TB, want, got *Template, d Data, msg string) {
	t.Helper()
	wantOut, wantErr := want.Render(d)
	gotOut, gotErr := got.Render(d)
	assert.Equal(t, wantOut, gotOut, msg)
	assert.Equal(t, errText(wantErr), errText(gotErr), msg)
	wantV, wantErr := want.Eval(d)
	gotV, gotErr := got.Eval(d)
	// Values may hold error values, which compare by identity.
	assert.Equal(t, fmt.Sprintf("%#v", wantV), fmt.Sprintf("%#v", gotV), msg)
	assert.Equal(t, errText(wantErr), errText(gotErr), msg)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzFastPaths renders arbitrary templates as parsed (fast paths, the plan)
// and with both turned off: the output (or the error) must be the same.
func FuzzFastPaths(f *testing.F) {
	for _, src := range bindTemplates {
		f.Add(src)
	}
	for _, src := range []string{
		"{{ x | first | upper }}", "{{ z | truncate(1) }}{{ s | truncate(2, '>') }}", "{{ missing | default(z) }}",
		"{% for n in x %}{{ n | string | truncate(3) }}{% endfor %}", "{{ get_input() | lower }}",
		"{{ previous_outputs.w.n | default('none') }}", "{{ input.a.b | string | center(5) }}",
	} {
		f.Add(src)
	}
	d := bindData(2)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2048 || strings.Contains(src, "range(") || strings.Contains(src, "random") {
			return
		}
		for _, strict := range []bool{false, true} {
			fast, err := Parse("fuzz", src, Options{Strict: strict})
			if err != nil {
				return
			}
			restore := setSwitches(true, &noFast, &noPlan)
			slow, err := Parse("fuzz", src, Options{Strict: strict})
			restore()
			require.NoError(t, err)
			fastOut, fastErr := fast.Render(d)
			slowOut, slowErr := slow.Render(d)
			require.Equal(t, slowOut, fastOut, "strict=%v", strict)
			require.Equal(t, errText(slowErr), errText(fastErr), "strict=%v", strict)
			fastV, fastErr := fast.Eval(d)
			slowV, slowErr := slow.Eval(d)
			// Values may hold functions ({{ _ }}), which only compare by identity.
			require.True(t, reflect.DeepEqual(slowV, fastV) || fmt.Sprintf("%#v", slowV) == fmt.Sprintf("%#v", fastV),
				"strict=%v: %#v != %#v", strict, slowV, fastV)
			require.Equal(t, errText(slowErr), errText(fastErr), "strict=%v", strict)
		}
	})
}
