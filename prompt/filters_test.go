package prompt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFilters(t *testing.T) {
	d := Data{
		Input: map[string]any{"input": "task", "n": 3},
		Previous: map[string]any{
			"w": map[string]any{"response": "héllo wörld, this is a long answer", "confidence": 0.9},
		},
		Vars: map[string]any{
			"long":  "abcdefghijklmnopqrstuvwxyz",
			"items": []any{"b", "a", "c"},
			"obj":   map[string]any{"k": "v", "n": nil},
			"loops": []any{map[string]any{"score": 0.5}, map[string]any{"score": 1.0, "status": "failed"}},
			"quote": `say "hi" <b>&</b> \ ünï`,
			"empty": "",
			"zero":  0,
		},
	}
	tests := []struct{ name, src, want string }{
		// truncate: OrKa's truncate(text, length=100, suffix="...")
		{"truncate default", "{{ (long * 5)|truncate|length }}", "100"},
		{"truncate length", "{{ long|truncate(10) }}", "abcdefg..."},
		{"truncate suffix", "{{ long|truncate(10, '…') }}", "abcdefghi…"},
		{"truncate short", "{{ 'abc'|truncate(10) }}", "abc"},
		{"truncate exact", "{{ 'abcde'|truncate(5) }}", "abcde"},
		{"truncate runes", "{{ previous_outputs.w.response|truncate(8) }}", "héllo..."},
		{"truncate jinja killwords", "{{ long|truncate(10, true) }}", "abcdefg..."},
		{"truncate jinja end", "{{ long|truncate(10, end='!') }}", "abcdefghi!"},
		{"truncate kw", "{{ long|truncate(length=6, suffix='~') }}", "abcde~"},
		{"truncate undefined", "[{{ missing|truncate(3) }}]", "[]"},
		{"truncate number", "{{ 3.14159|truncate(4) }}", "3..."},

		// tojson: compact, non-ASCII kept, no HTML escaping
		{"tojson map", "{{ obj|tojson }}", `{"k":"v","n":null}`},
		{"tojson list", "{{ [1, 2.0, 'é', none, true]|tojson }}", `[1,2.0,"é",null,true]`},
		{"tojson string", "{{ quote|tojson }}", `"say \"hi\" <b>&</b> \\ ünï"`},
		{"tojson dict literal keeps order", "{{ {'b': 1, 'a': 2}|tojson }}", `{"b":1,"a":2}`},
		{"tojson indent", "{{ {'a': [1]}|tojson(indent=2) }}", "{\n  \"a\": [\n    1\n  ]\n}"},
		{"tojson nested data", "{{ previous_outputs|tojson }}", `{"w":{"confidence":0.9,"response":"héllo wörld, this is a long answer"}}`},
		{"to_json_string", "{{ obj|to_json_string }}", `{"k": "v", "n": null}`},
		{"to_json_string list", "{{ loops|to_json_string }}", `[{"score": 0.5}, {"score": 1.0, "status": "failed"}]`},

		// default
		{"default undefined", "{{ missing|default('d') }}", "d"},
		{"default none", "{{ obj.n|default('d') }}", "d"},
		{"default keeps empty", "[{{ empty|default('d') }}]", "[]"},
		{"default boolean", "{{ empty|default('d', true) }}|{{ zero|default('z', boolean=true) }}", "d|z"},
		{"default no argument", "[{{ missing|default }}]", "[]"},
		{"d alias", "{{ missing|d('x') }}", "x"},
		{"default keeps value", "{{ input.input|default('d') }}", "task"},

		// length
		{"length list", "{{ items|length }}", "3"},
		{"length string runes", "{{ 'héllo'|length }}", "5"},
		{"length map", "{{ obj|length }}", "2"},
		{"length undefined", "{{ missing|length }}", "0"},
		{"count", "{{ items|count }}", "3"},

		// OrKa's safe_get and format_loop_metadata filters
		{"safe_get", "{{ obj|safe_get('k') }}|{{ obj|safe_get('x') }}|{{ obj|safe_get('x', 'dd') }}|{{ missing|safe_get('k') }}", "v|unknown|dd|unknown"},
		{"format_loop_metadata", "{{ loops|format_loop_metadata }}", "Loop 1: score=0.5, status=completed\nLoop 2: score=1.0, status=failed"},
		{"format_loop_metadata max", "{{ loops|format_loop_metadata(1) }}", "Loop 1: score=1.0, status=failed"},
		{"format_loop_metadata empty", "{{ []|format_loop_metadata }}", "No previous loops"},

		// format: Python printf semantics
		{"format", "{{ '%s scored %.2f'|format('x', 0.8123) }}", "x scored 0.81"},
		{"format float as s", "{{ 'Score: %s'|format(1.0) }}", "Score: 1.0"},
		{"format int from float", "{{ '%d%%'|format(99.9) }}", "99%"},
		{"format named", "{{ '%(a)s-%(b)s'|format(a=1, b='x') }}", "1-x"},
		{"format g", "{{ '%g|%g|%e'|format(1234567.0, 0.0001, 12.5) }}", "1.23457e+06|0.0001|1.250000e+01"},
		{"format hex", "{{ '%x %X %#x %o %#o %c'|format(255, 255, 255, 8, 8, 65) }}", "ff FF 0xff 10 0o10 A"},
		{"format repr", "{{ '%r'|format(\"it's\") }}", `"it's"`},

		// string: Python str()
		{"string", "{{ 1.0|string }}|{{ none|string }}|{{ [1.0]|string }}", "1.0||[1.0]"},

		// gonja builtins kept
		{"upper lower", "{{ 'aB'|upper }}{{ 'aB'|lower }}", "ABab"},
		{"join", "{{ items|join(', ') }}", "b, a, c"},
		{"sort", "{{ items|sort|join }}", "abc"},
		{"first last", "{{ items|first }}{{ items|last }}", "bc"},
		{"replace", "{{ 'aXbX'|replace('X', '-') }}", "a-b-"},
		{"trim", "[{{ '  x  '|trim }}]", "[x]"},
		{"title capitalize", "{{ 'hello world'|title }} {{ 'hello'|capitalize }}", "Hello World Hello"},
		{"round", "{{ 0.8123|round(2) }}", "0.81"},
		{"int float", "{{ '42'|int + 1 }} {{ '0.5'|float * 2 }}", "43 1.0"},
		{"map attribute", "{{ loops|map(attribute='score')|join(',') }}", "0.5,1.0"},
		{"selectattr", "{{ loops|selectattr('status')|list|length }}", "1"},
		{"center", "[{{ 'a'|center(5) }}]", "[  a  ]"},
		{"indent", "{{ 'a\nb'|indent(2) }}", "a\n  b"},
		{"wordcount", "{{ 'one two three'|wordcount }}", "3"},
		{"escape", "{{ '<b>'|e }}", "&lt;b&gt;"},
		{"batch", "{{ [1,2,3]|batch(2)|list|length }}", "2"},
		{"unique", "{{ ['a','a','b']|unique|list|length }}", "2"},
		{"reverse keeps order", "{{ [1,3,2]|reverse|join }}", "231"},
		{"reverse string runes", "{{ 'héllo'|reverse }}", "olléh"},
		{"items sorted", "{{ obj|items|list }}", "[('k', 'v'), ('n', None)]"},
		{"items loop", "{% for k, v in {'z': 1, 'a': 2}|items %}{{ k }}{{ v }}{% endfor %}", "z1a2"},
		{"sum", "{{ [1,2,3]|sum }}", "6"},
		{"dictsort", "{% for k, v in obj|dictsort %}{{ k }}{% endfor %}", "kn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, d))
		})
	}
}

func TestFilterErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"{{ 'x'|truncate('a') }}", "length must be an integer"},
		{"{{ 'x'|truncate(3, bogus=1) }}", "bogus"},
		{"{{ 'x'|tojson(indent=99) }}", "indent"},
		{"{{ '%s'|format(1, a=2) }}", "positional and keyword"},
		{"{{ x|safe_get }}", "missing argument"},
		{"{{ 'x'|nosuchfilter }}", "nosuchfilter"},
		{"{{ 'x'|lipsum }}", "lipsum"},
		// Python: '%c' % 0x110000 and '%c' % -1 raise OverflowError "%c arg not in range(0x110000)".
		{"{{ '%c'|format(1114112) }}", "%c arg not in range(0x110000)"},
		{"{{ '%c'|format(-1) }}", "%c arg not in range(0x110000)"},
		{"{{ '%c' % 1114112 }}", "%c arg not in range(0x110000)"},
	}
	for _, tc := range tests {
		t.Run(tc.src, func(t *testing.T) {
			err := renderErr(t, tc.src, Data{}, Options{})
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}
