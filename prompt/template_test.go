package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/nikolalohinski/gonja/v2/logging"
	"github.com/sirupsen/logrus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func render(t *testing.T, src string, d Data) string {
	t.Helper()
	tp, err := Parse("test", src, Options{})
	require.NoError(t, err)
	out, err := tp.Render(d)
	require.NoError(t, err)
	return out
}

func renderErr(t *testing.T, src string, d Data, opts Options) error {
	t.Helper()
	tp, err := Parse("test", src, opts)
	require.NoError(t, err)
	_, err = tp.Render(d)
	require.Error(t, err)
	return err
}

func TestRenderVariables(t *testing.T) {
	d := Data{
		Input:             "the task",
		Previous:          map[string]any{"writer": map[string]any{"response": "draft", "confidence": 0.8}},
		LoopNumber:        3,
		PastLoopsMetadata: map[string]any{"insights": "be concrete"},
		Vars:              map[string]any{"extra": "x", "input": "shadowed?", "loop_number": 99},
	}
	tests := []struct {
		name, src, want string
	}{
		{"input", "{{ input }}", "the task"},
		{"previous output", "{{ previous_outputs.writer.response }}", "draft"},
		{"item syntax", "{{ previous_outputs['writer']['response'] }}", "draft"},
		{"loop number", "{{ loop_number }}", "3"},
		{"past loops metadata", "{{ past_loops_metadata.insights }}", "be concrete"},
		{"vars", "{{ extra }}", "x"},
		{"vars do not replace input", "{{ input }}", "the task"},
		{"vars do not replace loop_number", "{{ loop_number }}", "3"},
		{"float", "{{ previous_outputs.writer.confidence }}", "0.8"},
		{"text around", "a {{ input }} b", "a the task b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
		})
	}
}

func TestLoopNumberOnlyInsideLoops(t *testing.T) {
	assert.Equal(t, "[]", render(t, "[{{ loop_number }}]", Data{}))
	assert.Equal(t, "[7]", render(t, "[{{ loop_number }}]", Data{Vars: map[string]any{"loop_number": 7}}))
	assert.Equal(t, "[]", render(t, "[{{ past_loops_metadata }}]", Data{}))
}

func TestPlainTextFastPath(t *testing.T) {
	tests := []struct{ src, want string }{
		{"just text", "just text"},
		{"one trailing newline is dropped\n", "one trailing newline is dropped"},
		{"crlf\r\nlines\r\n", "crlf\nlines"},
		{"braces { } %} }} #} are text", "braces { } %} }} #} are text"},
	}
	for _, tc := range tests {
		tp, err := Parse("plain", tc.src, Options{})
		require.NoError(t, err)
		assert.True(t, tp.plain, "%q should take the plain path", tc.src)
		out, err := tp.Render(Data{Input: "ignored"})
		require.NoError(t, err)
		assert.Equal(t, tc.want, out)
		assert.Equal(t, tc.src, tp.Source())
	}
	// The same normalisation as gonja's lexer applies to templates with tags.
	assert.Equal(t, "a\nb x", render(t, "a\r\nb {{ input }}\n", Data{Input: "x"}))
}

func TestDataIsNeverRenderedAsTemplate(t *testing.T) {
	evil := "{{ 7*7 }} {% include '/etc/passwd' %} {# c #} {{ get_input() }}"
	d := Data{
		Input:    evil,
		Previous: map[string]any{"a": map[string]any{"response": evil}},
		Vars:     map[string]any{"v": evil},
	}
	for _, src := range []string{
		"{{ input }}",
		"{{ previous_outputs.a.response }}",
		"{{ v }}",
		"{{ get_input() }}",
		"{{ get_agent_response('a') }}",
		"{{ v|upper|lower }}",
		"{% for c in [v] %}{{ c }}{% endfor %}",
	} {
		t.Run(src, func(t *testing.T) {
			assert.Equal(t, evil, render(t, src, d))
		})
	}
	// Nor is a rendered value re-rendered through an output with filters.
	assert.Equal(t, "{{ 49 }}", render(t, "{{ '{{ ' ~ 7*7 ~ ' }}' }}", d))
}

func TestForbiddenTags(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		tag       string
	}{
		{"{% include 'x.txt' %}", 1, 1, "include"},
		{"line one\n  {% include '/etc/passwd' %}", 2, 3, "include"},
		{"a\nb\n{% import 'macros.j2' as m %}", 3, 1, "import"},
		{"ok {% from 'x' import y %}", 1, 4, "from"},
		{"{% extends 'base.j2' %}", 1, 1, "extends"},
		{"{% if x %}\n    {% include 'x' %}{% endif %}", 2, 5, "include"},
		{"{% for i in y %}{% block b %}{% endblock %}{% endfor %}", 1, 17, "block"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			_, err := Parse("p", tc.src, Options{})
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.line, se.Line, "line")
			assert.Equal(t, tc.col, se.Col, "col")
			assert.Contains(t, se.Msg, "{% "+tc.tag+" %}")
			assert.Contains(t, se.Msg, "not allowed in cogloop prompts")
			assert.Equal(t, "p", se.Name)
		})
	}
}

func TestLoaderRefusesEverything(t *testing.T) {
	l := &sourceLoader{id: rootID, src: "x"}
	r, err := l.Read(rootID)
	require.NoError(t, err)
	require.NotNil(t, r)
	_, err = l.Read(rootID) // served once, to the parser
	assert.Error(t, err)
	_, err = l.Read("/etc/passwd")
	assert.Error(t, err)
	_, err = l.Resolve("other")
	assert.Error(t, err)
	_, err = l.Inherit("")
	assert.Error(t, err)
}

func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"unclosed output", "hello {{ name", 1, 14, "'}}' expected"},
		{"missing operand", "line1\nline2 {{ x + }}", 2, 14, "expected"},
		{"unclosed if", "a\n  {% if x %}\nfoo", 2, 3, "{% if %} is not closed"},
		{"unclosed for inside if", "{% if a %}\n{% for x in y %}{% endif %}", 2, 20, "{% for %} at line 2 col 1 is not closed"},
		{"stray endif", "ab\n  {% for x in y %}\n{% endif %}", 3, 4, "{% endif %}"},
		{"unterminated string", "ab\n{{ 'unterminated }}", 2, 4, "unterminated string"},
		{"unclosed comment", "ab\n  {# note", 2, 3, "unclosed comment"},
		{"unknown tag", "x {% frobnicate %}", 1, 6, "unknown tag {% frobnicate %}"},
		{"forbidden tag after its name as a variable", "{{ include }}\n{%- include 'x' %}", 2, 1, "{% include %} is not allowed"},
		{"forbidden tag inside a body", "{% if x %}\n {% block b %}{% endblock %}{% endif %}", 2, 2, "{% block %} is not allowed"},
		{"runes before the error", "héllo wörld {{ x | }}", 1, 20, "filter name"},
		{"unbalanced paren", "x\n{{ x ) }}", 2, 6, "unexpected delimiter"},
		{"bad for", "abc\n{% for %}{% endfor %}", 2, 1, "for"},
		{"empty output", "{{ }}", 1, 4, "expected"},
		{"recursive loop", "ok\n{% for x in y recursive %}{% endfor %}", 2, 1, "recursive loops"},
		{"set item", "{% set x[0] = 1 %}", 1, 1, "{% set %} may only assign"},
		{"set deep attribute", "\n\n {% set a.b.c = 1 %}", 3, 2, "{% set %} may only assign"},
		{"bad macro", "{% macro m( %}{% endmacro %}", 1, 1, "argument name"},
		{"deep nesting", "{{ " + strings.Repeat("(", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1) + " }}", 1, 4 + MaxNesting, "nested more than"},
		{"error inside a block body", "{% for x in y %}\n  {{ x ) }}{% endfor %}", 2, 8, "unexpected delimiter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("tpl", tc.src, Options{})
			var se *SyntaxError
			require.ErrorAs(t, err, &se, "got %v", err)
			assert.Equal(t, tc.line, se.Line, "line (%s)", se.Msg)
			assert.Equal(t, tc.col, se.Col, "col (%s)", se.Msg)
			assert.Contains(t, se.Msg, tc.msg)
			assert.Contains(t, se.Error(), fmt.Sprintf(`template "tpl" line %d col %d`, tc.line, tc.col))
		})
	}
}

func TestSyntaxErrorCRLFPositions(t *testing.T) {
	_, err := Parse("crlf", "a\r\nb\r\n  {{ x + }}", Options{})
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 3, se.Line)
	assert.Equal(t, 10, se.Col)
}

func TestUndefinedRendersEmpty(t *testing.T) {
	d := Data{
		Input:    map[string]any{"input": "task"},
		Previous: map[string]any{"failed": map[string]any{"result": nil, "status": "error", "error": "boom"}},
	}
	tests := []struct{ src, want string }{
		{"[{{ missing }}]", "[]"},
		{"[{{ input.missing }}]", "[]"},
		{"[{{ input.missing.deeper }}]", "[]"},
		{"[{{ missing.a.b.c }}]", "[]"},
		{"[{{ previous_outputs.nope.response }}]", "[]"},
		{"[{{ previous_outputs.failed.result.response }}]", "[]"},
		{"[{{ input['missing']['deeper'] }}]", "[]"},
		{"[{{ input.missing[0] }}]", "[]"},
		{"{% if input.missing.deeper %}yes{% else %}no{% endif %}", "no"},
		{"{{ input.missing.deeper is defined }}", "False"},
		{"{{ input.missing|default('fallback') }}", "fallback"},
		{"{{ previous_outputs.failed.status }}", "error"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
		})
	}
}

func TestStrictMode(t *testing.T) {
	d := Data{
		Input:    map[string]any{"input": "task"},
		Previous: map[string]any{"writer": map[string]any{"response": "draft"}},
		Vars:     map[string]any{"list": []any{1}},
	}
	errs := []struct{ src, name string }{
		{"{{ missing }}", `undefined variable "missing"`},
		{"line1\n{{ input.nope }}", `"nope"`},
		{"{{ previous_outputs.reviewer.response }}", `"reviewer"`},
		{"{{ previous_outputs['reviewer'] }}", `"reviewer"`},
		{"{{ list[3] }}", "out of range"},
		{"{% for x in missing %}{% endfor %}", `"missing"`},
	}
	for _, tc := range errs {
		t.Run(tc.src, func(t *testing.T) {
			err := renderErr(t, tc.src, d, Options{Strict: true})
			var re *RenderError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, "test", re.Name)
			assert.Contains(t, err.Error(), tc.name)
			assert.Contains(t, err.Error(), `render template "test"`)
		})
	}
	// The line of the failing tag is reported.
	err := renderErr(t, "a\nb\n{{ input.nope }}", d, Options{Strict: true})
	var re *RenderError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Line)

	ok := []struct{ src, want string }{
		{"{{ previous_outputs.writer.response }}", "draft"},
		{"{{ missing|default('d') }}", "d"},
		{"{% if missing is defined %}y{% else %}n{% endif %}", "n"},
		{"{{ input.input }}", "task"},
	}
	for _, tc := range ok {
		tp, err := Parse("strict", tc.src, Options{Strict: true})
		require.NoError(t, err)
		out, err := tp.Render(d)
		require.NoError(t, err, tc.src)
		assert.Equal(t, tc.want, out, tc.src)
	}
	// The same template without Strict renders empty.
	assert.Equal(t, "", render(t, "{{ input.nope }}", d))
}

func TestPythonNumberFormatting(t *testing.T) {
	d := Data{Vars: map[string]any{
		"one": 1.0, "half": 0.5, "score": 0.8123, "big": 1e16, "tiny": 1e-5, "n": 3,
		"f32": float32(0.25), "neg": -2.0, "list": []any{1.0, 0.5, "a", nil, true}, "i64": int64(7),
	}}
	tests := []struct{ src, want string }{
		{"{{ one }}", "1.0"},
		{"{{ half }}", "0.5"},
		{"{{ score }}", "0.8123"},
		{"{{ big }}", "1e+16"},
		{"{{ tiny }}", "1e-05"},
		{"{{ f32 }}", "0.25"},
		{"{{ neg }}", "-2.0"},
		{"{{ n }}", "3"},
		{"{{ i64 }}", "7"},
		{"{{ 3 / 2 }}", "1.5"},
		{"{{ 2 * 1.5 }}", "3.0"},
		{"{{ 2 ** 3 }}", "8"},
		{"{{ 2 ** -1 }}", "0.5"},
		{"{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 5.5 % 2 }}", "1|2|1.5"},
		{"{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7.5 // 2 }}", "3|-4|3.0"},
		{"{{ list }}", "[1.0, 0.5, 'a', None, True]"},
		{"{{ 'score: ' ~ one }}", "score: 1.0"},
		{"{{ one|string }}", "1.0"},
		{"{{ true }} {{ false }}", "True False"},
		{"{{ {'a': 1.0, 'b': none} }}", "{'a': 1.0, 'b': None}"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
		})
	}
}

func TestEvalTyping(t *testing.T) {
	d := Data{
		Input:    "task",
		Previous: map[string]any{"r": map[string]any{"approved": true}},
		Vars:     map[string]any{"score": 0.75, "n": 3, "items": []any{"a", "b"}, "m": map[string]any{"k": 1}},
	}
	tests := []struct {
		src  string
		want any
	}{
		{"{{ n }}", 3},
		{"  {{ score }}\n", 0.75},
		{"{{ items }}", []any{"a", "b"}},
		{"{{ [1, 2.5, 'x'] }}", []any{1, 2.5, "x"}},
		{"{{ {'a': [1]} }}", map[string]any{"a": []any{1}}},
		{"{{ m }}", map[string]any{"k": 1}},
		{"{{ previous_outputs.r.approved }}", true},
		{"{{ missing }}", nil},
		{"{{ n + 1 }}", 4},
		{"{{ score * 2 }}", 1.5},
		{"{{ input }}", "task"},
		{"score: {{ score }}", "score: 0.75"},
		{"{{ n }}{{ n }}", "33"},
		{"{# c #}{{ n }}", "3"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			tp, err := Parse("eval", tc.src, Options{})
			require.NoError(t, err)
			got, err := tp.Eval(d)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	tp, err := Parse("eval", "{{ missing }}", Options{Strict: true})
	require.NoError(t, err)
	_, err = tp.Eval(d)
	assert.ErrorContains(t, err, `undefined variable "missing"`)
}

func TestParseExpr(t *testing.T) {
	d := Data{
		Previous: map[string]any{"review": map[string]any{"approved": false, "score": 0.4}},
		Vars:     map[string]any{"n": 2},
	}
	tests := []struct {
		src    string
		want   any
		truthy bool
	}{
		{"previous_outputs.review.approved == false", true, true},
		{"previous_outputs.review.approved", false, false},
		{"previous_outputs.review.score >= 0.5 or n > 1", true, true},
		{"previous_outputs.missing.approved", nil, false},
		{"n * 2", 4, true},
		{"'}}' ~ n", "}}2", true},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			e, err := ParseExpr("while", tc.src, Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.src, e.Source())
			got, err := e.Eval(d)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.truthy, Truthy(got))
		})
	}
	bad := []struct {
		src       string
		line, col int
	}{
		{"x +", 1, 4},
		{"", 1, 1},
		{"a }} b {{ c", 1, 1},
		{"x\n  y", 2, 3},
		{"{% if x %}", 1, 2},
	}
	for _, tc := range bad {
		t.Run("bad "+tc.src, func(t *testing.T) {
			_, err := ParseExpr("while", tc.src, Options{})
			var se *SyntaxError
			require.ErrorAs(t, err, &se, "got %v", err)
			assert.Equal(t, tc.line, se.Line, se.Msg)
			assert.Equal(t, tc.col, se.Col, se.Msg)
		})
	}
}

func TestTruthy(t *testing.T) {
	type s struct{}
	var nilMap map[string]any
	falsy := []any{nil, false, 0, 0.0, "", []any{}, map[string]any{}, nilMap, int64(0), uint(0), []string{}}
	for _, v := range falsy {
		assert.False(t, Truthy(v), "%#v", v)
	}
	truthy := []any{true, 1, -1, 0.1, "0", "False", []any{nil}, map[string]any{"a": nil}, s{}, &s{}, []int{0}}
	for _, v := range truthy {
		assert.True(t, Truthy(v), "%#v", v)
	}
}

func TestOutputCap(t *testing.T) {
	big := strings.Repeat("x", 700<<10)
	tp, err := Parse("capped", "{{ a }}{{ b }}", Options{})
	require.NoError(t, err)
	_, err = tp.Render(Data{Vars: map[string]any{"a": big, "b": big}})
	require.ErrorIs(t, err, ErrLimit)
	assert.Contains(t, err.Error(), `"capped"`)
	assert.Contains(t, err.Error(), "exceeds 1048576 bytes")

	out, err := tp.Render(Data{Vars: map[string]any{"a": big, "b": "y"}})
	require.NoError(t, err)
	assert.Len(t, out, len(big)+1)

	// Options.MaxOutput moves the cap.
	small, err := Parse("small", "{% for i in range(100) %}0123456789{% endfor %}", Options{MaxOutput: 500})
	require.NoError(t, err)
	_, err = small.Render(Data{})
	require.ErrorIs(t, err, ErrLimit)
	larger, err := Parse("larger", "{{ a }}{{ b }}", Options{MaxOutput: 2 << 20})
	require.NoError(t, err)
	out, err = larger.Render(Data{Vars: map[string]any{"a": big, "b": big}})
	require.NoError(t, err)
	assert.Len(t, out, 2*len(big))
}

func TestResourceLimits(t *testing.T) {
	tests := []struct{ name, src, msg string }{
		{"string repetition", "{{ 'x' * 100000000000 }}", "repeated string"},
		{"repetition count first", "{{ 10000000000 * 'ab' }}", "repeated string"},
		{"doubling concatenation", "{% set ns = namespace(s='x' * 1000) %}{% for i in range(20) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "bytes"},
		{"doubling addition", "{% set ns = namespace(s='xxxxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", "bytes"},
		{"list doubling", "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}", "items"},
		{"list repetition", "{{ [1, 2] * 100000000 }}", "list repeated"},
		{"huge range", "{% for i in range(10**9) %}{% endfor %}", "range()"},
		{"range budget", "{% for i in range(100) %}{{ range(90000)|length }}{% endfor %}", "range() produced more than"},
		{"iterations", "{% set s = 'x' * 1000 %}{% for a in s %}{% for b in s %}{% for c in s %}{% endfor %}{% endfor %}{% endfor %}", "loop iterations"},
		{"macro recursion", "{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}", "macro \"r\" nested"},
		{"mutual recursion", "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}", "nested more than"},
		{"center width", "{{ 'x'|center(1000000000) }}", "center width"},
		{"str method width", "{{ 'x'.ljust(1000000000) }}", "width"},
		{"format width", "{{ '%1000000000s'|format('x') }}", "format width"},
		{"python %% width", "{{ '%99999999d' % 5 }}", "format width"},
		{"str.format width", "{{ '{:>1000000000}'.format('x') }}", "format field"},
		{"replace growth", "{{ ('x' * 500000)|replace('x', 'yyyyyyyyyy') }}", "replaced string"},
		{"join growth", "{{ range(1000)|join('x' * 10000) }}", "joined string"},
		{"batch fill", "{{ [1]|batch(1000000000, 'x') }}", "batch"},
		{"slice count", "{{ [1]|slice(1000000000) }}", "slice"},
		{"work in macro buffers", "{% macro m() %}{% for i in range(1000) %}{{ 'x' * 100000 }}{% endfor %}{% endmacro %}{% for i in range(1000) %}{{ m()|length }}{% endfor %}", "bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := renderErr(t, tc.src, Data{}, Options{})
			assert.ErrorIs(t, err, ErrLimit)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestParseLimits(t *testing.T) {
	_, err := Parse("huge", strings.Repeat("x", MaxTemplateBytes+1), Options{})
	assert.ErrorIs(t, err, ErrLimit)

	var se *SyntaxError
	_, err = Parse("blocks", strings.Repeat("{% if 1 %}", MaxNesting+1)+strings.Repeat("{% endif %}", MaxNesting+1), Options{})
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "blocks nested more than")

	_, err = Parse("chain", "{{ 1"+strings.Repeat(" + 1", MaxTagTokens)+" }}", Options{})
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "tokens")

	// Just under the limits parses and renders.
	tp, err := Parse("ok", "{{ 1"+strings.Repeat(" + 1", MaxTagTokens/2-2)+" }}", Options{})
	require.NoError(t, err)
	out, err := tp.Render(Data{})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(MaxTagTokens/2-1), out)
	tp, err = Parse("deep", strings.Repeat("{% if 1 %}", MaxNesting)+"x"+strings.Repeat("{% endif %}", MaxNesting), Options{})
	require.NoError(t, err)
	out, err = tp.Render(Data{})
	require.NoError(t, err)
	assert.Equal(t, "x", out)
}

func TestTemplatesCannotChangeData(t *testing.T) {
	list := make([]any, 2, 10) // spare capacity: an in-place append would write into it
	list[0], list[1] = "a", "b"
	inner := map[string]any{"k": "v"}
	d := Data{
		Input:    map[string]any{"input": "task", "list": list, "inner": inner},
		Previous: map[string]any{"x": map[string]any{"response": "r"}},
	}
	for _, src := range []string{
		"{% do input.list.append('c') %}",
		"{% do input.list.reverse() %}",
		"{% do input.inner.update({'k': 'changed'}) %}",
		"{% do input.inner.pop('k') %}",
		"{% do input.inner.clear() %}",
		"{% do previous_outputs.x.update({'response': 'changed'}) %}",
		"{% set l = input.list %}{% do l.append('c') %}{% do l.reverse() %}",
	} {
		t.Run(src, func(t *testing.T) {
			render(t, src, d)
			assert.Equal(t, []any{"a", "b"}, list)
			assert.Equal(t, "a", list[:3][0])
			assert.Nil(t, list[:3][2], "backing array untouched")
			assert.Equal(t, map[string]any{"k": "v"}, inner)
			assert.Equal(t, "r", d.Previous["x"].(map[string]any)["response"])
		})
	}
	for _, src := range []string{"{% set input.input = 'x' %}", "{% set previous_outputs.x = 1 %}"} {
		err := renderErr(t, src, d, Options{})
		assert.ErrorContains(t, err, "only namespace() objects can be changed")
	}
	// namespace() objects are for that.
	assert.Equal(t, "3", render(t, "{% set ns = namespace(c=0) %}{% for i in range(3) %}{% set ns.c = ns.c + 1 %}{% endfor %}{{ ns.c }}", d))
	// A template's own list is a value the template may grow.
	assert.Equal(t, "[1, 2]", render(t, "{% set l = [] %}{% do l.append(1) %}{% do l.append(2) %}{{ l }}", d))
}

func TestControlStructures(t *testing.T) {
	d := Data{Vars: map[string]any{"items": []any{"a", "b", "c"}, "m": map[string]any{"x": 1, "y": 2}}}
	tests := []struct{ src, want string }{
		{"{% for i in items %}{{ loop.index }}{{ i }}{% if not loop.last %},{% endif %}{% endfor %}", "1a,2b,3c"},
		{"{% for i in [] %}x{% else %}empty{% endfor %}", "empty"},
		{"{% for k, v in m.items() %}{{ k }}={{ v }};{% endfor %}", "x=1;y=2;"},
		{"{% for i in items if i != 'b' %}{{ i }}{% endfor %}", "ac"},
		{"{% for i in items %}{% if i == 'b' %}{% break %}{% endif %}{{ i }}{% endfor %}", "a"},
		{"{% for i in items %}{% if i == 'b' %}{% continue %}{% endif %}{{ i }}{% endfor %}", "ac"},
		{"{% macro greet(name, p='!') %}hi {{ name }}{{ p }}{% endmacro %}{{ greet('a') }} {{ greet('b', p='?') }}", "hi a! hi b?"},
		{"{% set x %}captured {{ items|length }}{% endset %}[{{ x }}]", "[captured 3]"},
		{"{% with y = 5 %}{{ y }}{% endwith %}", "5"},
		{"{% filter upper %}shout {{ items[0] }}{% endfilter %}", "SHOUT A"},
		{"{% raw %}{{ not rendered }}{% endraw %}", "{{ not rendered }}"},
		{"{{ 'yes' if items else 'no' }}", "yes"},
		{"a {#- comment -#} b", "ab"},
		{"{%- if true -%}\n  trimmed  \n{%- endif -%}", "trimmed"},
		{"{% for i in range(3) %}{{ i }}{% endfor %}", "012"},
		{"{% for i in range(10, 0, -3) %}{{ i }} {% endfor %}", "10 7 4 1 "},
		{"{{ items[-1] }}{{ ['only'][-1] }}{{ 'héllo'[1] }}{{ items.0 }}", "conlyéa"},
		{"{{ items[1:] }}", "['b', 'c']"},
		{"{% set ns = namespace(total=0) %}{% for i in range(4) %}{% set ns.total = ns.total + i %}{% endfor %}{{ ns.total }}", "6"},
		{"{{ 'a,b'.split(',') }} {{ ' x '.strip() }} {{ 'ab'.upper() }}", "['a', 'b'] x AB"},
		{"{{ '%s-%d-%.2f-%5s-%-3d|' % ('a', 3, 0.5, 'b', 7) }}", "a-3-0.50-    b-7  |"},
		{"{{ '%(a)s/%(b)r' % {'a': 'x', 'b': 'y'} }}", "x/'y'"},
		{"{% call(x) %}never{% endcall %}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			tp, err := Parse("cs", tc.src, Options{})
			if tc.want == "" {
				if err != nil {
					return // call without a macro is a parse error in gonja; either outcome is fine
				}
				_, _ = tp.Render(d)
				return
			}
			require.NoError(t, err)
			out, err := tp.Render(d)
			require.NoError(t, err)
			assert.Equal(t, tc.want, out)
		})
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"{{ 1 % 0 }}", "modulo by zero"},
		{"{{ 1 / 0 }}", "division by zero"},
		{"{{ 1 // 0 }}", "division or modulo by zero"},
		{"{{ nope() }}", "not callable"},
		{"{{ x|nofilter }}", "nofilter"},
		{"{{ missing.upper() }}", `cannot call method "upper" of an undefined value`},
		{"{{ '%d' % 'x' }}", "a number is required"},
		{"{{ '%s %s' % ('a',) }}", "not enough arguments"},
		{"{{ '%s' % ('a', 'b') }}", "not all arguments converted"},
		{"{{ range(1, 2, 0) }}", "step"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			err := renderErr(t, tc.src, Data{}, Options{})
			var re *RenderError
			require.ErrorAs(t, err, &re)
			assert.Contains(t, err.Error(), tc.msg)
			assert.NotContains(t, err.Error(), "\x00")
			assert.False(t, errors.Is(err, ErrLimit))
		})
	}
}

func TestConcurrentRenders(t *testing.T) {
	tp, err := Parse("conc", "{{ get_input() }}|{% for p in get_past_loops() %}{{ p.score }},{% endfor %}|{{ previous_outputs.a.response|upper }}|{{ n }}", Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := g*1000 + i
				d := Data{
					Input: map[string]any{
						"input":            fmt.Sprint("task", n),
						"previous_outputs": map[string]any{"past_loops": []any{map[string]any{"score": n}}},
					},
					Previous: map[string]any{"a": map[string]any{"response": fmt.Sprint("r", n)}},
					Vars:     map[string]any{"n": n},
				}
				out, err := tp.Render(d)
				if !assert.NoError(t, err) {
					return
				}
				want := fmt.Sprintf("task%d|%d,|R%d|%d", n, n, n, n)
				if !assert.Equal(t, want, out) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestGonjaLoggingSilenced(t *testing.T) {
	var buf bytes.Buffer
	logrus.SetOutput(&buf)
	defer logrus.SetOutput(nil)
	logging.SetEnabled(true) // as if another package turned it on
	defer logging.SetEnabled(false)
	tp, err := Parse("log", "{{ f|length }}{{ f }}{% if f %}x{% endif %}", Options{})
	require.NoError(t, err)
	_, err = tp.Render(Data{Vars: map[string]any{"f": func() {}}})
	require.NoError(t, err)
	assert.False(t, logging.Enabled())
	assert.Empty(t, buf.String())
}

func TestRenderHelperNamesAreNotReachable(t *testing.T) {
	// Internal operators and the render state have NUL in their names: templates
	// cannot name them, and variables cannot shadow them.
	d := Data{Vars: map[string]any{"add": "x", "mul": "y"}}
	assert.Equal(t, "3 x", render(t, "{{ 1 + 2 }} {{ add }}", d))
	assert.Equal(t, "", render(t, "{{ state }}", d))
}

// TestLexerTrap: sources on which gonja's lexer would loop for ever are syntax
// errors; the same characters in text and strings still parse.
func TestLexerTrap(t *testing.T) {
	for _, src := range []string{"{{ 0$0.䅆", "{{ 0.é }}", "{% if 1.5.ü %}x{% endif %}", "{{ x[0.é] }}",
		"\x1c\x9f\xae\xdf/\x1b\xa9\xb2䅆\x0f\x13\xe5\x9fRIZ|\x8fX\xf0\a$\xdf{{0$0.䅆\x0f\x13A",
		"{{0\x9f0.䅆\x0f\x13A", "{{ x.€ + 1 }}{{ 2.€ }}", "{{ 'a' ~ 7.ü }}", "{{!0.䅆"} { // gonja lexes on after "!"
		_, err := Parse("trap", src, Options{})
		var se *SyntaxError
		require.ErrorAs(t, err, &se, "%q", src)
		assert.Contains(t, se.Msg, "non-ASCII", "%q", src)
	}
	for _, src := range []string{"version 1.é and {{ input }}", "{{ 'v1.é' }}", "{{ input }} 2.ü", "{# 3.é #}{{ 1.5 }}",
		"{{ item1.名前 }}", "{% raw %}{{ 4.é }}{% endraw %}{{ x }}"} {
		_, err := Parse("trap", src, Options{})
		assert.NoError(t, err, "%q", src)
	}
	_, err := Parse("trap", "{{ 1.٣ }}", Options{}) // a digit continues the number: no trap (gonja reads a float)
	if err != nil {
		assert.NotContains(t, err.Error(), "non-ASCII")
	}
}
