package prompt

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNames(t *testing.T) {
	v := func(name string, line, col int) Name { return Name{Kind: NameVar, Name: name, Line: line, Col: col} }
	fn := func(name string, line, col int) Name { return Name{Kind: NameFunc, Name: name, Line: line, Col: col} }
	out := func(name string, line, col int) Name { return Name{Kind: NameOutput, Name: name, Line: line, Col: col} }
	guarded := func(n Name) Name { n.Guarded = true; return n }
	cases := []struct {
		src  string
		want []Name
	}{
		{"plain text", nil},
		{"{{ topic }}", []Name{v("topic", 1, 4)}},
		{"{{ get_inptu() }}", []Name{fn("get_inptu", 1, 4)}},
		{"a\n  {{ x | truncate(3) }}", []Name{v("x", 2, 6), {Kind: NameFilter, Name: "truncate", Line: 2, Col: 10}}},
		{"{% if x is strng %}{% endif %}", []Name{v("x", 1, 7), {Kind: NameTest, Name: "strng", Line: 1, Col: 12}}},
		{"{{ previous_outputs.writr.response }}", []Name{v("previous_outputs", 1, 4), out("writr", 1, 21)}},
		{"{{ previous_outputs['w'] }}{{ previous_outputs.get('g') }}", []Name{v("previous_outputs", 1, 4), out("w", 1, 21), v("previous_outputs", 1, 31), out("g", 1, 52)}},
		{"{{ get_agent_response('a') }}{{ safe_get_response('b', 'none') }}", []Name{fn("get_agent_response", 1, 4), out("a", 1, 23), fn("safe_get_response", 1, 33), out("b", 1, 51)}},
		{"{{ topic | default('x') }}{% if y is defined %}{{ y }}{% endif %}", []Name{guarded(v("topic", 1, 4)), {Kind: NameFilter, Name: "default", Line: 1, Col: 12}, guarded(v("y", 1, 33)), {Kind: NameTest, Name: "defined", Line: 1, Col: 38}, guarded(v("y", 1, 51))}},
		{"{% if has_context('c') %}{{ previous_outputs.c }}{% endif %}", []Name{fn("has_context", 1, 7), v("previous_outputs", 1, 29), guarded(out("c", 1, 46))}},
		{"{% set n = 1 %}{% for a, b in d %}{{ a }}{{ b }}{{ loop.index }}{% endfor %}{{ n }}", []Name{v("d", 1, 31)}},
		{"{% macro m(p, q=1) %}{{ p }}{{ q }}{{ varargs }}{% endmacro %}{{ m(1) }}{% with w = 2 %}{{ w }}{% endwith %}", nil},
		{"{% set ns = namespace(k=1) %}{% set ns.k = ns.k + 1 %}{{ ns.k }}", []Name{fn("namespace", 1, 13)}},
		{"{{ 'a' ~ b ~ c[0] }}", []Name{v("b", 1, 10), v("c", 1, 14)}},
		{"{{ x == none }}{{ x == None }}", []Name{v("x", 1, 4), v("x", 1, 19)}},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			tp, err := Parse("t", tc.src, Options{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, tp.Names())
			assert.Equal(t, tc.want, tp.Names(), "computed once, the same every time")
		})
	}
}

func TestExprNamesArePositionedInTheExpression(t *testing.T) {
	e, err := ParseExpr("while", "score < 0.9 and previous_outputs.critc.ok", Options{})
	require.NoError(t, err)
	assert.Equal(t, []Name{{Kind: NameVar, Name: "score", Line: 1, Col: 1}, {Kind: NameVar, Name: "previous_outputs", Line: 1, Col: 17}, {Kind: NameOutput, Name: "critc", Line: 1, Col: 34}}, e.Names())
}

func TestCheck(t *testing.T) {
	scope := &Scope{Vars: []string{"score", "loop_number"}, CheckOutputs: true, Agents: []string{"writer", "critic"},
		Absent: func(id string) string {
			if id == "later" {
				return "it runs after this agent"
			}
			return ""
		}}
	cases := []struct {
		src   string
		scope *Scope
		want  []string
	}{
		{"{{ get_inptu() }}", nil, []string{"E 1:4 undefined function get_inptu(); did you mean get_input?"}},
		{"{{ x | truncat }}{{ x | nosuchfilterhere }}", nil, []string{"E 1:8 undefined filter \"truncat\"; did you mean truncate?", "E 1:25 undefined filter \"nosuchfilterhere\""}},
		{"{{ topic }} {{ get_input() }} {{ input }} {{ previous_outputs.nobody }}", nil, nil},
		{"{{ topic }}{{ topic }}", scope, []string{"W 1:4 undefined variable \"topic\" renders empty"}},
		{"{{ scroe }} {{ score }} {{ loop_number }} {{ get_input }}", scope, []string{"W 1:4 undefined variable \"scroe\" renders empty; did you mean score?"}},
		{"{{ previous_outputs.writr.response }}", scope, []string{"W 1:21 previous_outputs has no \"writr\" here: no agent \"writr\" can have run before this one; did you mean writer?"}},
		{"{{ previous_outputs.later }}", scope, []string{"W 1:21 previous_outputs has no \"later\" here: no agent \"later\" can have run before this one (it runs after this agent)"}},
		{"{{ previous_outputs.later }}", &Scope{}, nil},
		{"{{ previous_outputs.critic }}{{ get_agent_response('writer') }}", scope, nil},
		// more questions than nameSet scans for: the rest are answered by its index
		{"{{ score }}{{ loop_number }}{{ input }}{{ score }}{{ loop_number }}{{ input }}{{ score }}{{ loop_number }}{{ input }}{{ scroe }}{{ score }}" +
			"{% for i in [1] %}{{ previous_outputs.writer }}{{ previous_outputs.critic }}{{ previous_outputs.writer }}{{ previous_outputs.critic }}" +
			"{{ previous_outputs.writer }}{{ previous_outputs.critic }}{{ previous_outputs.writer }}{{ previous_outputs.critic }}{{ previous_outputs.critc }}{% endfor %}",
			scope, []string{"W 1:121 undefined variable \"scroe\" renders empty; did you mean score?",
				"W 1:410 previous_outputs has no \"critc\" here: no agent \"critc\" can have run before this one; did you mean critic?"}},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			tp, err := Parse("t", tc.src, Options{})
			require.NoError(t, err)
			var got []string
			for _, f := range Check(tp.Names(), tc.scope) {
				kind := "W"
				if f.Error {
					kind = "E"
				}
				got = append(got, fmt.Sprintf("%s %d:%d %s", kind, f.Line, f.Col, f.Msg))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestKnownNamesComeFromTheEnvironment(t *testing.T) {
	k := known()
	for _, name := range []string{"get_input", "get_past_loops", "safe_get_response", "range", "namespace", "dict"} {
		assert.True(t, k.funcs[name], name)
	}
	for _, name := range []string{"truncate", "tojson", "default", "upper", "format_loop_metadata"} {
		assert.True(t, k.filters[name], name)
	}
	assert.True(t, k.tests["defined"])
	for _, list := range [][]string{k.funcList, k.filterList, k.testList} {
		for _, name := range list {
			assert.NotContains(t, name, "\x00", "internal names are not offered")
		}
	}
	for _, name := range alwaysBound {
		_, ok := (&Data{}).bound(name)
		assert.True(t, ok, "every render binds %s", name)
	}
}

func TestMissing(t *testing.T) {
	tp, err := Parse("t", "{{ topic }} {{ tone | default('') }} {{ get_input() }} {{ input }} {{ loop_number }} {{ v }}", Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"topic", "loop_number", "v"}, tp.Missing(Data{}))
	assert.Equal(t, []string{"topic"}, tp.Missing(Data{LoopNumber: 2, Vars: map[string]any{"v": nil}}), "a variable bound to None is bound")
	plain, err := Parse("t", "no tags", Options{})
	require.NoError(t, err)
	assert.Empty(t, plain.Missing(Data{}))
}

func TestUndefinedMatchesTheRenderError(t *testing.T) {
	tp, err := Parse("t", "{% if input %}{{ get_inptu() }}{% endif %}", Options{})
	require.NoError(t, err)
	_, err = tp.Render(Data{Input: "x"})
	require.Error(t, err)
	f, ok := tp.Undefined(err)
	require.True(t, ok)
	assert.Equal(t, "get_inptu", f.Name.Name)
	assert.Equal(t, "did you mean get_input?", f.Fix())
	_, ok = tp.Undefined(errors.New("something else"))
	assert.False(t, ok)
	out, err := tp.Render(Data{})
	require.NoError(t, err, "the call is only made when its branch renders")
	assert.Empty(t, out)
}

func TestClosest(t *testing.T) {
	cands := []string{"get_input", "get_loop_number", "writer", "score"}
	for name, want := range map[string]string{
		"get_inptu": "get_input", "get_loop_numbr": "get_loop_number", "writr": "writer",
		"scroe": "score", "topic": "", "w": "", "get_input": "",
	} {
		assert.Equal(t, want, closest(name, cands), name)
	}
}

func TestTemplateOutputs(t *testing.T) {
	cases := []struct {
		src  string
		ids  []string
		all  bool
		note string
	}{
		{"{{ input }}", nil, false, "reads none"},
		{"{{ previous_outputs.a.response }} {{ previous_outputs['b'] }} {{ previous_outputs.get('c') }} {{ previous_outputs.a }}", []string{"a", "b", "c"}, false, "static ids"},
		{"{% if previous_outputs.a is defined %}{{ previous_outputs.a | default('x') }}{% endif %}", []string{"a"}, false, "guarded"},
		{"{{ previous_outputs }}", nil, true, "the whole mapping"},
		{"{% for k, v in previous_outputs.items() %}{{ k }}{% endfor %}", nil, true, "a loop over it"},
		{"{{ previous_outputs | length }} {{ previous_outputs.a }}", nil, true, "a filter on it"},
		{"{{ previous_outputs[name] }}", nil, true, "a dynamic key"},
		{"{% set p = previous_outputs %}{{ p.a }}", nil, true, "an alias"},
		{"{{ get_agent_response('a') }}", nil, true, "a helper"},
		{"{{ previous_outputs.a }} {{ get_fork_responses() }}", nil, true, "any other function call"},
		{"{{ previous_outputs.a }} {% if has_past_loops() %}{{ get_past_loops() }}{% endif %}", []string{"a"}, false, "the history helpers (Data.EachOutput)"},
		{"{{ previous_outputs.a }} {{ get_input() }} {{ get_loop_number() }}", []string{"a"}, false, "helpers that read only the input"},
		{"{% set f = get_past_loops %}{{ previous_outputs.a }}{{ f() }}", nil, true, "a function as a value"},
	}
	for _, c := range cases {
		tpl, err := Parse("t", c.src, Options{})
		require.NoError(t, err, c.src)
		ids, all := tpl.Outputs()
		assert.Equal(t, c.all, all, "%s: %s", c.note, c.src)
		assert.Equal(t, c.ids, ids, "%s: %s", c.note, c.src)
	}
}
