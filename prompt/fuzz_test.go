package prompt

import (
	"strings"
	"testing"
)

// FuzzParseRender looks for inputs that make gonja (or our rewrite of its tree)
// panic: Parse and Render turn panics into "internal error" errors, which this
// fuzz target reports as failures. It also renders each template through its
// plan and through gonja alone: outputs and errors must be the same.
func FuzzParseRender(f *testing.F) {
	for _, seed := range []string{
		"plain",
		"{{ x }}",
		"{{ input.a.b }}{{ previous_outputs.w.response|upper }}",
		"{% for p in get_past_loops() %}{{ loop.index }} {{ p.score }}{% else %}none{% endfor %}",
		"{% if a %}x{% elif b %}y{% else %}z{% endif %}",
		"{% set ns = namespace(c=0) %}{% set ns.c = ns.c + 1 %}{{ ns.c }}",
		"{% macro m(a, b=2) %}{{ a ~ b }}{% endmacro %}{{ m(1) }}",
		"{{ '%s %d' % ('a', 1) }}{{ [1,2][-1] }}{{ 'abc'[1:] }}",
		"{{ x|truncate(3)|tojson }}{{ {'a': [1, none]}|to_json_string }}",
		"{% raw %}{{ x }}{% endraw %}{# c #}{%- if true -%} t {%- endif -%}",
		"{% filter upper %}x{% endfilter %}{% with a = 1 %}{{ a }}{% endwith %}",
		"{{ x if y else z }}{{ not x }}{{ -1 }}{{ 2 ** 10 }}{{ 7 // 2 }}{{ 1 in [1] }}",
		"{% call m() %}x{% endcall %}",
		"{{ x.0 }}{{ x[0][1] }}{{ range(3)|list }}",
		"{{ 'a'.upper() }}{{ x.items() }}{{ cycler('a','b').next() }}",
		"{% for k, v in {'a': 1}.items() %}{{ k }}{% endfor %}",
		"{{ x is defined }}{{ x is none }}{{ 3 is divisibleby 2 }}",
		"{{ '{:>5}'.format('x') }}{{ 'a,b'.split(',') }}",
		"{{ 'a' if y else 'b' if z else 'c' }}{% set v = [1 if y, (2 if z else 3)] %}{{ (v | first).real }}",
		"{{ '\\s*\\1\\x41' ~ 'a\\\\' }}{% for loop in x if loop %}{{ loop }}{% endfor %}",
		"{{ (x | default({})).items() }}{{ f(a=1 if y else 2)[0:1 if z else 2] }}",
		"{% for p in input.previous_outputs.past_loops %}{{ p.score | truncate(2) }}{% if loop.first %}f{% endif %}{% endfor %}",
		"{{ s | truncate(2, '~') | upper }}{% for c in s %}{% if c == 't' %}{% break %}{% endif %}{{ c }}{% else %}e{% endfor %}",
	} {
		f.Add(seed)
	}
	d := Data{
		Input:    map[string]any{"input": "task", "a": map[string]any{"b": 1}, "previous_outputs": map[string]any{"past_loops": []any{map[string]any{"score": 0.5}}}},
		Previous: map[string]any{"w": map[string]any{"response": "r", "n": nil}},
		Vars:     map[string]any{"x": []any{"a", []any{1, 2}}, "y": 0, "z": "z", "s": "str"},
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		for _, strict := range []bool{false, true} {
			tp, err := Parse("fuzz", src, Options{Strict: strict})
			if err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("Parse(%q) panicked: %v", src, err)
				}
				continue
			}
			out, err := tp.Render(d)
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("Render(%q) panicked: %v", src, err)
			}
			comparePlan(t, src, d, strict, out, err)
			checkNamesReplay(t, src, Options{Strict: strict})
			if _, err := tp.Eval(d); err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("Eval(%q) panicked: %v", src, err)
			}
		}
	})
}

// comparePlan renders src through gonja alone and compares with the planned
// render's out and err (random and now() differ from render to render).
func comparePlan(t *testing.T, src string, d Data, strict bool, out string, err error) {
	if strings.Contains(src, "random") || strings.Contains(src, "now") {
		return
	}
	restore := setSwitches(true, &noFast, &noPlan)
	tp, perr := Parse("fuzz", src, Options{Strict: strict})
	restore()
	if perr != nil {
		t.Fatalf("Parse(%q) failed only without plans: %v", src, perr)
	}
	want, wantErr := tp.Render(d)
	if want != out || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("strict=%v %q: planned %q (%v), gonja %q (%v)", strict, src, out, err, want, wantErr)
	}
}
