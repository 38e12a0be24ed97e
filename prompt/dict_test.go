package prompt

import (
	"testing"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dictTemplates read a mapping every way a template can.
var dictTemplates = []string{
	`{{ m }}`, `{{ m.b }}`, `{{ m['a'] }}`, `{{ m.get('a') }}`, `{{ m.get('zz', 'd') }}`,
	`{{ m.missing }}|{{ m.missing.deeper }}`, `{{ m.c.e }}`, `{{ m.c }}`, `{{ m.c['d'] }}`,
	`{% for k in m %}{{ k }},{% endfor %}`, `{% for k, v in m.items() %}{{ k }}={{ v }};{% endfor %}`,
	`{{ m.keys() | list }}`, `{{ m.values() | list }}`, `{{ m.items() | list }}`,
	`{{ m | length }}`, `{{ m | count }}`, `{{ m | tojson }}`, `{{ m.c | tojson }}`, `{{ m | default('x') }}`,
	`{{ 'a' in m }}{{ 'zz' in m }}`, `{{ m is mapping }}`, `{{ m is defined }}`, `{{ m is iterable }}`,
	`{% if m %}yes{% endif %}{% if m.c %}c{% endif %}`, `{{ m | dictsort }}`, `{{ m | string }}`,
	`{{ m | list }}`, `{{ m | safe_get('b') }}`, `{{ m | truncate(12) }}`, `{{ [m] }}`, `{{ {'x': m} }}`,
	`{{ m.b ~ '!' }}`, `{{ m | to_json_string }}`, `{{ m.c.items() | list }}`, `{{ (m | default({})).items() | list }}`,
	`{{ m | first }}`, `{{ m | join(',') }}`, `{{ m | sort | list }}`, `{{ m | map('upper') | list }}`,
	`{{ [m][0].b }}`, `{% for x in [m] %}{{ x.b }}{{ x.get('a') }}{% endfor %}`, `{% set y = m %}{{ y.c.e }}`,
	`{{ m.c.get('d') }}`, `{{ m['c']['e'][1] }}`, `{{ m.c.keys() | list }}`, `{{ previous_outputs.w.c.e[0] }}`,
	`{{ get_agent_response('w') }}`, `{{ safe_get_response('w', 'none') }}`, `{{ m.c.d is none }}`,
	`{{ "%s" % m }}`, `{{ m == m }}`, `{{ m.c | dictsort }}`,
}

func dictData(m any) Data {
	return Data{Vars: map[string]any{"m": m}, Previous: map[string]any{"w": m}}
}

// A Dict in sorted order renders exactly as the map it views: templates read
// it in every way they read a map.
func TestDictReadsAsItsMap(t *testing.T) {
	m := map[string]any{"b": "two", "a": 1.5, "c": map[string]any{"e": []any{1, "x"}, "d": nil}}
	d := View(m, &pyvalue.Order{Sub: map[string]*pyvalue.Order{"c": {}}})
	for _, strict := range []bool{false, true} {
		for _, src := range dictTemplates {
			tpl, err := Parse("t", src, Options{Strict: strict})
			require.NoError(t, err, src)
			want, werr := tpl.Render(dictData(m))
			got, gerr := tpl.Render(dictData(d))
			if werr != nil {
				assert.EqualError(t, gerr, werr.Error(), src)
				continue
			}
			if assert.NoError(t, gerr, src) {
				assert.Equal(t, want, got, src)
			}
		}
	}
	e, err := ParseExpr("e", "m", Options{})
	require.NoError(t, err)
	v, err := e.Eval(dictData(d))
	require.NoError(t, err)
	assert.Equal(t, m, v, "Go callers get plain maps back")
}

// A Dict in its own order prints, iterates and encodes in that order.
func TestDictOwnOrder(t *testing.T) {
	d := View(map[string]any{"response": "r", "confidence": "0.9", "internal_reasoning": "i", "nested": map[string]any{"y": 1, "x": 2}},
		&pyvalue.Order{Keys: []string{"response", "confidence", "internal_reasoning", "nested"},
			Sub: map[string]*pyvalue.Order{"nested": {Keys: []string{"y", "x"}}}})
	for src, want := range map[string]string{
		`{{ m }}`:                              `{'response': 'r', 'confidence': '0.9', 'internal_reasoning': 'i', 'nested': {'y': 1, 'x': 2}}`,
		`{{ previous_outputs.w }}`:             `{'response': 'r', 'confidence': '0.9', 'internal_reasoning': 'i', 'nested': {'y': 1, 'x': 2}}`,
		`{% for k in m %}{{ k }},{% endfor %}`: "response,confidence,internal_reasoning,nested,",
		`{% for k, v in m.nested.items() %}{{ k }}{% endfor %}`: "yx",
		`{{ m.keys() | list }}`:                                 "['response', 'confidence', 'internal_reasoning', 'nested']",
		`{{ m.nested | tojson }}`:                               `{"y":1,"x":2}`,
		`{{ m.nested | dictsort }}`:                             "[('x', 2), ('y', 1)]",
		`{{ m.nested.values() | list }}`:                        "[1, 2]",
		`{{ m | first }}`:                                       "response",
	} {
		tpl, err := Parse("t", src, Options{})
		require.NoError(t, err, src)
		got, err := tpl.Render(dictData(d))
		if assert.NoError(t, err, src) {
			assert.Equal(t, want, got, src)
		}
	}
}

// previous_outputs as a whole is in run order where Data gives one; helpers
// handed it still recognise it.
func TestPreviousOutputsInRunOrder(t *testing.T) {
	d := Data{Previous: map[string]any{"b": map[string]any{"response": "x"}, "a": map[string]any{"response": "y"}}, PreviousOrder: []string{"b", "a"}}
	for src, want := range map[string]string{
		`{{ previous_outputs }}`:                             `{'b': {'response': 'x'}, 'a': {'response': 'y'}}`,
		`{% for k in previous_outputs %}{{ k }}{% endfor %}`: "ba",
	} {
		tpl, err := Parse("t", src, Options{})
		require.NoError(t, err, src)
		got, err := tpl.Render(d)
		require.NoError(t, err, src)
		assert.Contains(t, got, want, src)
	}
	withArg, err := Parse("t", `{{ get_execution_artifacts(previous_outputs) | to_json_string }}`, Options{})
	require.NoError(t, err)
	without, err := Parse("t", `{{ get_execution_artifacts() | to_json_string }}`, Options{})
	require.NoError(t, err)
	a, err := withArg.Render(d)
	require.NoError(t, err)
	b, err := without.Render(d)
	require.NoError(t, err)
	assert.Equal(t, b, a, "the ordered previous_outputs is still the render's own")
	assert.Contains(t, a, `["b", "a"]`)
}
