package prompt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each want is what Jinja2 3.1 renders for the same template and data
// (jinja2.Environment() with default settings).
func TestJinjaConstructs(t *testing.T) {
	d := Data{Vars: map[string]any{
		"c": false, "c2": true, "n": 2, "n0": 0,
		"x": map[string]any{"a": 1, "b": 2},
	}}
	tests := []struct{ name, src, want string }{
		// conditional expressions
		{"chained, middle", `{{ 'a' if c else 'b' if c2 else 'd' }}`, "b"},
		{"chained, last", `{{ 'a' if c else 'b' if c else 'd' }}`, "d"},
		{"chained, first", `{{ 'a' if c2 else 'b' if c2 else 'd' }}`, "a"},
		{"parenthesised then filter", `{{ ('a' if c else 'b') | tojson }}`, `"b"`},
		{"filter binds to the else branch", `{{ 'a' if c else 'b' | upper }}`, "B"},
		{"filter binds to the first branch", `{{ 'x' | upper if c2 else 'y' }}`, "X"},
		{"in set", `{% set v = 'a' if c else 'b' %}{{ v }}`, "b"},
		{"in a list", `{{ [1 if c else 2, 3 if c2 else 4] }}`, "[2, 3]"},
		{"in a dict", `{{ {'k': 'a' if c else 'b'} }}`, "{'k': 'b'}"},
		{"as a condition", `{{ 'yes' if (1 if c else 0) else 'no' }}`, "no"},
		{"no else, true", `{{ 'x' ~ ('a' if c2) ~ 'y' }}`, "xay"},
		{"no else, false", `{{ 'x' ~ ('a' if c) ~ 'y' }}`, "xy"},
		{"no else is undefined", `{{ ('a' if c) is defined }}`, "False"},
		{"lazy: the other branch is not evaluated", `{{ 'r=' ~ ((10 / n0) if n0 else 'none') }}`, "r=none"},
		{"in a for filter", `{% for i in [1,2,3] if i > (1 if c else 2) %}{{ i }}{% endfor %}`, "3"},
		{"for filter is a conditional itself", `{% for i in [1,2,3] if i > 1 if c2 else 0 %}{{ i }}{% endfor %}`, "23"},
		{"method argument", `{{ x.get('a' if c2 else 'b') }}`, "1"},
		{"operand", `{{ (x.a if c2 else 0) + 1 }}`, "2"},
		{"top-level without else", `{{ 'p' if c }}|`, "|"},
		// string literals: Python's escapes
		{"unknown escape kept", `{{ '\s*' }}`, `\s*`},
		{"regex in double quotes", `{{ "\d+\.\d+" }}`, `\d+\.\d+`},
		{"newline", `{{ 'a\nb' }}`, "a\nb"},
		{"tab", `{{ 'tab\there' }}`, "tab\there"},
		{"quotes", `{{ 'q\'s' ~ "d\"q" }}`, `q'sd"q`},
		{"backslash", `{{ 'back\\slash' }}`, `back\slash`},
		{"hex, unicode, octal", `{{ '\x41\u00e9\101' }}`, "AéA"},
		{"octal one", `{{ '\1' | length }}`, "1"},
		{"control escapes", `{{ '\a\b\f\v\r' | length }}`, "5"},
		{"long unicode", `{{ '\U0001F600' }}`, "😀"},
		{"backslash newline", "{{ 'a\\\nb' }}", "ab"},
		{"unknown in both quotes", `{{ '\q' ~ "\w" }}`, `\q\w`},
		{"backslash before non-ASCII", `{{ '\é' }}`, `\xe9`},
		{"escaped backslash before the quote", `{{ 'a\\' | length }}{{ '\\\\' | length }}`, "22"},
		{"escaped backslashes only in literals", `C:\\path {{ 'a\\' }} {% raw %}{{ '\\' }}{% endraw %}{# '\\' #}|{{ "x\\" ~ 'y\\\'' }}`,
			`C:\\path a\ {{ '\\' }}|x\y\'`},
		// methods on parenthesised expressions
		{"items of a default", `{% for k, v in (x | default({})).items() %}{{ k }}={{ v }};{% endfor %}`, "a=1;b=2;"},
		{"items of a missing mapping", `{% for k, v in (y | default({})).items() %}{{ k }}={{ v }};{% endfor %}`, ""},
		{"string method", `{{ (name | default('abc')).upper() }}`, "ABC"},
		{"method of a concatenation", `{{ ('a,b' ~ ',c').split(',') | length }}`, "3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
			for _, strict := range []bool{false, true} {
				tp, err := Parse("t", tc.src, Options{Strict: strict})
				require.NoError(t, err)
				assert.Empty(t, tp.Warnings())
				checkNamesReplay(t, tc.src, Options{Strict: strict})
			}
		})
	}
}

// OrKa's files at 6037af3f use these forms (cognitive_society_with_memory.yml,
// orka_self_reflection_with_graphscout.yml, memory_validation_routing_and_write.yml,
// graph_scout_with_plan_validator_loop.yml, maternity_v3.yml).
func TestJinjaConstructsFromOrKaFiles(t *testing.T) {
	phase := `{{ 'INITIAL' if loop_number == 1 else 'BRIDGE_BUILDING' if loop_number <= 3 else 'CONSENSUS_BUILDING' }}`
	for n, want := range map[int]string{1: "INITIAL", 3: "BRIDGE_BUILDING", 5: "CONSENSUS_BUILDING"} {
		assert.Equal(t, want, render(t, phase, Data{LoopNumber: n}))
	}
	insight := `{{ 'DEEP' if score >= 0.85 else 'SURFACE' if score >= 0.70 else 'INITIAL' }}`
	for score, want := range map[float64]string{0.9: "DEEP", 0.75: "SURFACE", 0.2: "INITIAL"} {
		assert.Equal(t, want, render(t, insight, Data{Vars: map[string]any{"score": score}}))
	}
	source := `"source": {{ ('Retrieved from validated memories' if previous_outputs.get('answer_builder') else 'Generated from internet search') | tojson }},`
	assert.Equal(t, `"source": "Generated from internet search",`, render(t, source, Data{}))
	assert.Equal(t, `"source": "Retrieved from validated memories",`,
		render(t, source, Data{Previous: map[string]any{"answer_builder": map[string]any{"response": "ok"}}}))
	results := `{% for agent_id, result in (executor.results | default({})).items() %}{{ agent_id }}: {{ result }}; {% endfor %}`
	assert.Equal(t, "a: 1; b: 2; ", render(t, results, Data{Vars: map[string]any{"executor": map[string]any{"results": map[string]any{"a": 1, "b": 2}}}}))
	assert.Equal(t, "", render(t, results, Data{Vars: map[string]any{"executor": map[string]any{}}}))
	pattern := `{{ 'harm_score":\s*"([0-9.]+)"' }}|{{ '\1' == '\x01' }}`
	assert.Equal(t, `harm_score":\s*"([0-9.]+)"|True`, render(t, pattern, Data{}))
}

func TestBadStringEscape(t *testing.T) {
	for _, tc := range []struct {
		src, msg  string
		line, col int
	}{
		{`{{ 'ab\xZZ' }}`, `truncated \xXX escape`, 1, 7},
		{"x\n{{ '\\u12' }}", `truncated \uXXXX escape`, 2, 5},
		{`{{ '\N{BULLET}' }}`, `\N{...} escapes are not supported`, 1, 5},
	} {
		_, err := Parse("t", tc.src, Options{})
		var se *SyntaxError
		require.ErrorAs(t, err, &se, tc.src)
		assert.Contains(t, se.Msg, tc.msg)
		assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{se.Line, se.Col}, se.Msg)
	}
}

// Jinja rejects a conditional as the test of {% if %} and as a for loop's
// iterable (without parentheses); so do we.
func TestConditionalWhereJinjaRejectsIt(t *testing.T) {
	for _, src := range []string{
		`{% if 'a' if c else '' %}T{% endif %}`,
		`{% for i in [1] if c else [2] %}{{ i }}{% endfor %}`,
		`{{ 'a' if }}`,
		`{{ 'a' if c else }}`,
		`{% set v = 'a' if c else %}`,
	} {
		_, err := Parse("t", src, Options{})
		var se *SyntaxError
		assert.ErrorAs(t, err, &se, src)
	}
}

// {% for loop in get_past_loops() %} is in OrKa's loop documentation. Jinja2
// refuses it ("Can't assign to special loop variable in for-loop target") and
// OrKa then sends the template unrendered; we render what it means, the items,
// and say so with a warning.
func TestForTargetNamedLoop(t *testing.T) {
	d := Data{Previous: map[string]any{"past_loops": []any{
		map[string]any{"iteration": 1, "score": 0.5},
		map[string]any{"iteration": 2, "score": 0.7},
	}}}
	src := "Past:\n  {% for loop in get_past_loops() %}{{ loop.iteration }}:{{ loop.score }};{% endfor %}"
	assert.Equal(t, "Past:\n  1:0.5;2:0.7;", render(t, src, d))
	tp, err := Parse("t", src, Options{})
	require.NoError(t, err)
	w := tp.Warnings()
	require.Len(t, w, 1)
	assert.Equal(t, "loop_target", w[0].Code)
	assert.Equal(t, [2]int{2, 3}, [2]int{w[0].Line, w[0].Col})
	assert.True(t, strings.Contains(w[0].Msg, "Jinja2 rejects"), w[0].Msg)

	// an inner loop has its own loop variable; after it the item is back
	nestedSrc := `{% for loop in previous_outputs.past_loops %}{% for x in [7] %}{{ loop.index }}{% endfor %}{{ loop.iteration }} {% endfor %}`
	assert.Equal(t, "11 12 ", render(t, nestedSrc, d))
	// other names keep the loop variable
	assert.Equal(t, "1:1 2:2 ", render(t, `{% for p in get_past_loops() %}{{ loop.index }}:{{ p.iteration }} {% endfor %}`, d))
}

func TestPyStringValueRoundTrip(t *testing.T) {
	for _, s := range []string{``, `\`, `\\`, `a\"b`, "\x00\xff", `\n`, "é\t", `"'`, `\x41`, `\u00e9`} {
		tp, err := Parse("t", "{{ x == '"+strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`)+"' }}", Options{})
		require.NoError(t, err, "%q", s)
		out, err := tp.Render(Data{Vars: map[string]any{"x": s}})
		require.NoError(t, err)
		assert.Equal(t, "True", out, "%q", s)
	}
}
