package prompt

import (
	"testing"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFastPathsMatchGonja renders templates with and without the fast paths:
// the output (or the error) must be the same.
func TestFastPathsMatchGonja(t *testing.T) {
	type obj struct{ Name string }
	d := Data{
		Input: map[string]any{"input": "task", "nested": map[string]any{"k": nil}, "s": "str"},
		Previous: map[string]any{
			"w":     map[string]any{"response": "r", "confidence": 0.5, "n": 3, "flag": true, "list": []any{1, "a"}},
			"typed": map[string]string{"response": "typed"},
		},
		Vars: map[string]any{
			"ns":       namespace{"a": 1},
			"st":       obj{Name: "n"},
			"ptr":      &obj{Name: "p"},
			"get_xyz":  "not a helper",
			"f":        1.0,
			"big":      1e20,
			"nan_like": "nan",
		},
		LoopNumber: 2,
	}
	srcs := []string{
		"{{ input }}", "{{ input.input }}", "{{ input.nested.k }}", "{{ input.nested.k.deeper }}",
		"{{ input.s.upper }}", "{{ input.s.nope }}", "{{ missing }}", "{{ missing.a.b }}",
		"{{ previous_outputs.w }}", "{{ previous_outputs.w.confidence }}", "{{ previous_outputs.w.n }}",
		"{{ previous_outputs.w.flag }}", "{{ previous_outputs.w.list }}", "{{ previous_outputs.typed.response }}",
		"{{ ns.a }}", "{{ st.Name }}", "{{ ptr.Name }}", "{{ f }}", "{{ big }}", "{{ loop_number }}",
		"{{ get_input() }}", "{{ get_agent_response('w') }}", "{{ get_loop_number() }}", "{{ has_past_loops() }}",
		"{{ get_xyz }}", "{{ safe_get_response('nope', 'fb') }}", "{{ get_past_loops() }}",
		"{% if previous_outputs.w.flag %}y{% endif %}", "{% if input.nope %}y{% else %}n{% endif %}",
		"{% if has_past_loops() %}y{% else %}n{% endif %}", "{% for x in previous_outputs.w.list %}{{ x }}{% endfor %}",
		"{% for x in get_past_loops() %}{{ x }}{% else %}none{% endfor %}",
		"{{ input.input if previous_outputs.w.flag else 'no' }}",
		"{% set get_input = get_loop_number %}{{ get_input() }}",
		"{% autoescape true %}{{ '<b>' }}{{ input.input }}{% endautoescape %}",
		// filtered paths
		"{{ input.input | upper }}", "{{ input.input | truncate(2) }}", "{{ input.input | truncate(2, '~') | upper }}",
		"{{ input.input | truncate(length=3, end='!') }}", "{{ input.input | truncate('x') }}", "{{ input.input | nope }}",
		"{{ missing | default('d') }}", "{{ input.nested.k | default('d') }}", "{{ input.nested.k | default('d', true) }}",
		"{{ input.nested.k.deeper | default('d') }}", "{{ previous_outputs.w.list | join(', ') }}",
		"{{ previous_outputs.w.confidence | round(1) }}", "{{ previous_outputs.w | tojson }}", "{{ f | int }}",
		"{{ previous_outputs.w.flag | string | length }}", "{{ ns.a | string }}", "{{ st.Name | lower }}",
		"{{ input.s | replace('s', 'S') }}", "{{ input.s | center(9) }}", "{{ big | truncate(3) }}",
		"{% for x in previous_outputs.w.list %}{{ x | string | upper }}{% endfor %}",
		"{% autoescape true %}{{ input.input | upper }}{% endautoescape %}", "{{ input.input | safe }}",
		"{{ get_input() | upper }}", "{{ get_loop_number() | string }}", "{{ get_agent_response('w') | truncate(1) }}",
		"{{ get_agent_response('nope') | default('none') }}", "{{ get_input('x') | upper }}", "{{ has_past_loops() | string }}",
	}
	for _, strict := range []bool{false, true} {
		for _, src := range srcs {
			fastOut, fastErr := renderWith(t, src, d, strict, false)
			slowOut, slowErr := renderWith(t, src, d, strict, true)
			assert.Equal(t, slowOut, fastOut, "strict=%v %s", strict, src)
			if slowErr != nil || fastErr != nil {
				require.Error(t, fastErr, "strict=%v %s", strict, src)
				require.Error(t, slowErr, "strict=%v %s", strict, src)
				assert.Equal(t, slowErr.Error(), fastErr.Error(), "strict=%v %s", strict, src)
			}
		}
	}
}

func renderWith(t *testing.T, src string, d Data, strict, slow bool) (string, error) {
	t.Helper()
	defer setSwitches(slow, &noFast, &noPlan)()
	tp, err := Parse("fast", src, Options{Strict: strict})
	require.NoError(t, err, src)
	return tp.Render(d)
}

func TestLoopSemantics(t *testing.T) {
	d := Data{Vars: map[string]any{
		"items":  []any{"a", "b", "c"},
		"typed":  []map[string]any{{"n": 1}, {"n": 2}},
		"words":  []string{"x", "y"},
		"m":      map[string]any{"b": 2, "a": 1},
		"pairs":  []any{[]any{"k1", "v1"}, []any{"k2", "v2"}},
		"nested": []any{[]any{1, 2}, []any{3}},
	}}
	tests := []struct{ name, src, want string }{
		{"loop vars", "{% for i in items %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}", "1032TrueFalse3;2121FalseFalse3;3210FalseTrue3;"},
		{"prev next", "{% for i in items %}[{{ loop.previtem }}>{{ i }}>{{ loop.nextitem }}]{% endfor %}", "[>a>b][a>b>c][b>c>]"},
		{"cycle", "{% for i in items %}{{ loop.cycle('o', 'e') }}{% endfor %}", "oeo"},
		{"changed", "{% for i in [1, 1, 2] %}{{ loop.changed(i) }}{% endfor %}", "TrueFalseTrue"},
		{"depth", "{% for a in nested %}{% for b in a %}{{ loop.depth }}{{ b }}{% endfor %}{{ loop.depth }}{% endfor %}", "21221231"},
		{"outer loop var in inner loop", "{% for a in items %}{% for b in words %}{{ a }}{{ b }} {% endfor %}{% endfor %}", "ax ay bx by cx cy "},
		{"typed slice", "{% for t in typed %}{{ t.n }}{% endfor %}", "12"},
		{"string slice", "{% for w in words %}{{ w }}{% endfor %}", "xy"},
		{"mapping keys sorted", "{% for k in m %}{{ k }}{% endfor %}", "ab"},
		{"mapping items", "{% for k, v in m %}{{ k }}={{ v }};{% endfor %}", "a=1;b=2;"},
		{"dict literal keeps order", "{% for k, v in {'z': 1, 'a': 2} %}{{ k }}{{ v }}{% endfor %}", "z1a2"},
		{"pairs", "{% for k, v in pairs %}{{ k }}={{ v }};{% endfor %}", "k1=v1;k2=v2;"},
		{"string characters", "{% for c in 'héllo' %}[{{ c }}]{% endfor %}", "[h][é][l][l][o]"},
		{"filter removes all", "{% for i in items if i == 'z' %}{{ i }}{% else %}none{% endfor %}", "none"},
		{"filter uses loop var", "{% for i in items if i != 'a' %}{{ loop.index }}{{ i }}{% endfor %}", "1b2c"},
		{"undefined iterable", "{% for i in missing %}x{% else %}empty{% endfor %}", "empty"},
		{"set in body does not leak across iterations", "{% for i in [1, 2] %}{% if i == 1 %}{% set x = 'a' %}{% endif %}[{{ x }}]{% endfor %}", "[a][]"},
		{"set in body does not leak out", "{% set x = 'out' %}{% for i in [1] %}{% set x = 'in' %}{{ x }}{% endfor %}{{ x }}", "inout"},
		{"set in if is visible after", "{% if true %}{% set y = 1 %}{% endif %}{{ y }}", "1"},
		{"elif", "{% for i in [1, 2, 3] %}{% if i == 1 %}a{% elif i == 2 %}b{% else %}c{% endif %}{% endfor %}", "abc"},
		{"break in nested if", "{% for i in items %}{% if i == 'b' %}{% if true %}{% break %}{% endif %}{% endif %}{{ i }}{% endfor %}", "a"},
		{"loop var shadows and restores", "{% set i = 'outer' %}{% for i in [1] %}{{ i }}{% endfor %}{{ i }}", "1outer"},
		{"macro in loop body", "{% for i in [1, 2] %}{% macro m() %}<{{ i }}>{% endmacro %}{{ m() }}{% endfor %}", "<1><2>"},
		{"empty dict literal is false", "{% if {} %}y{% else %}n{% endif %}", "n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
		})
	}
}

// truncateRunes is truncate's algorithm on runes, as it was first written.
func truncateRunes(s string, n int, sfx string) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:max(n-len([]rune(sfx)), 0)]) + sfx
}

func TestTruncateCountsCharacters(t *testing.T) {
	for _, s := range []string{"", "a", "abc", "héllo wörld", "日本語のテキスト", "a\xffb\xfe", "\xff\xff\xff\xff", "emoji 🙂🙂🙂 end"} {
		for n := -2; n <= 16; n++ {
			for _, sfx := range []string{"...", "", "…", "\xff"} {
				got, err := truncate(exec.AsValue(s), exec.AsValue(n), exec.AsValue(sfx))
				require.NoError(t, err)
				assert.Equal(t, truncateRunes(s, n, sfx), got, "%q %d %q", s, n, sfx)
			}
		}
	}
}
