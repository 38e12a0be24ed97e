package prompt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// repoTemplates returns every string in the repository's workflow files
// (examples, the OrKa corpus, the loop node's golden workflows, testdata) that
// holds a template tag, sorted and without duplicates.
func repoTemplates(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && (strings.Contains(n.Value, "{{") || strings.Contains(n.Value, "{%")) {
			seen[n.Value] = true
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	files := 0
	for _, dir := range []string{"../examples", "../testdata", "../loopnode/testdata", "testdata"} {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			dec := yaml.NewDecoder(strings.NewReader(string(src)))
			for {
				var doc yaml.Node
				if dec.Decode(&doc) != nil {
					break // the end, or a file that is not YAML on purpose
				}
				walk(&doc)
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Greater(t, files, 50, "the workflow files were not found")
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// planData returns data sets for a template: empty, and one where every
// output and variable it reads is bound (responses, scores, past loops).
func planDataFor(tp *Template) []Data {
	past := []any{
		map[string]any{"loop_number": 1, "score": 0.42, "insights": "too vague — needs détail", "improvements": []any{"examples"}, "mistakes": "", "result": "r1"},
		map[string]any{"loop_number": 2, "score": 0.61, "insights": strings.Repeat("insight ", 40), "improvements": "more", "mistakes": nil},
	}
	out := map[string]any{
		"response": "the answer — with “quotes” " + strings.Repeat("long text ", 30), "confidence": 0.8, "score": 0.7,
		"result": map[string]any{"response": "inner", "past_loops": past, "final_score": 0.9}, "past_loops": past,
		"loops_completed": 2, "final_score": 0.9, "threshold_met": true, "memories": []any{map[string]any{"content": "m"}},
		"results": []any{"a", "b"}, "memory_object": map[string]any{"k": "v"}, "domain": "d",
	}
	prev := map[string]any{}
	vars := map[string]any{}
	for _, n := range tp.Names() {
		switch n.Kind {
		case NameOutput:
			prev[n.Name] = out
		case NameVar:
			switch n.Name {
			case "input", "previous_outputs", "loop_number", "past_loops_metadata":
			default:
				vars[n.Name] = out
			}
		}
	}
	prev["plain"] = "a string output"
	full := Data{
		Input:             map[string]any{"input": "the task", "previous_outputs": map[string]any{"past_loops": past}, "loop_number": 3},
		Previous:          prev,
		LoopNumber:        3,
		PastLoopsMetadata: map[string]any{"insights": "i", "improvements": "m", "mistakes": "x"},
		Vars:              vars,
	}
	return []Data{{}, {Input: "just text", LoopNumber: 1}, full}
}

// renderBoth renders src planned and through gonja; the outputs and errors
// must be the same. It returns the planned result.
func renderBoth(t *testing.T, src string, d Data, opts Options) (string, error) {
	t.Helper()
	planned, err := Parse("p", src, opts)
	if err != nil {
		return "", err
	}
	restore := setSwitches(true, &noFast, &noPlan)
	gonjaOnly, err2 := Parse("p", src, opts)
	restore()
	require.NoError(t, err2)
	require.Nil(t, gonjaOnly.plan)
	out, err := planned.Render(d)
	want, wantErr := gonjaOnly.Render(d)
	assert.Equal(t, want, out, "%q strict=%v", src, opts.Strict)
	if err != nil || wantErr != nil {
		require.Error(t, err, "%q strict=%v: gonja failed (%v), the plan did not", src, opts.Strict, wantErr)
		require.Error(t, wantErr, "%q strict=%v: the plan failed (%v), gonja did not", src, opts.Strict, err)
		assert.Equal(t, wantErr.Error(), err.Error(), "%q strict=%v", src, opts.Strict)
	}
	v, err := planned.Eval(d)
	wantV, wantErr := gonjaOnly.Eval(d)
	// %v: error values inside lists carry their stacks
	assert.Equal(t, fmt.Sprintf("%T %v", wantV, wantV), fmt.Sprintf("%T %v", v, v), "Eval %q strict=%v", src, opts.Strict)
	assert.Equal(t, wantErr == nil, err == nil, "Eval %q strict=%v: %v / %v", src, opts.Strict, err, wantErr)
	if err != nil && wantErr != nil {
		assert.Equal(t, wantErr.Error(), err.Error(), "Eval %q", src)
	}
	return out, err
}

// TestPlanMatchesGonjaOnRepoTemplates renders every template of the
// repository's workflows with its plan and through gonja alone, lenient and
// strict, with no data and with everything it reads bound.
func TestPlanMatchesGonjaOnRepoTemplates(t *testing.T) {
	tpls := repoTemplates(t)
	require.Greater(t, len(tpls), 200)
	planned, renders, completed := 0, 0, 0
	for _, src := range tpls {
		tp, err := Parse("p", src, Options{})
		if err != nil {
			continue // templates that do not parse on purpose (error tests)
		}
		if tp.plan != nil {
			planned++
		}
		for _, d := range planDataFor(tp) {
			for _, strict := range []bool{false, true} {
				_, _ = renderBoth(t, src, d, Options{Strict: strict}) // renderBoth asserts the two paths agree, errors included
			}
			if tp.plan != nil {
				renders++
				if _, ok := tp.runPlan(d); ok {
					completed++
				}
			}
		}
	}
	t.Logf("%d templates, %d planned; %d of %d lenient planned renders completed without gonja's renderer", len(tpls), planned, completed, renders)
	assert.Greater(t, completed, renders/2)
	// most prompts are planned; the rest (set, macros, ...) render through gonja
	assert.Greater(t, planned, len(tpls)*2/3, "planned %d of %d templates", planned, len(tpls))
}

// TestPlanFallsBack: a planned render that meets what it does not handle gives
// gonja's output or error.
func TestPlanFallsBack(t *testing.T) {
	d := Data{
		Input:    map[string]any{"input": "t", "n": 3},
		Previous: map[string]any{"w": map[string]any{"response": "r", "list": []any{1, 2, 3}, "none": nil}},
		Vars:     map[string]any{"s": "abc", "items": []any{map[string]any{"a": 1}, map[string]any{"a": 2}}},
	}
	for _, src := range []string{
		"{{ input.n > 2 }} {{ input.n + 1 }} {{ s[0] }} {{ s | length }}",
		"{% for x in items %}{{ loop.index }}:{{ x.a }}{% if loop.last %}.{% endif %}{% endfor %}",
		"{% for x in previous_outputs.w.list %}{% if x == 2 %}{% continue %}{% endif %}{{ x }}{% endfor %}",
		"{% for x in previous_outputs.w.list %}{% if x == 2 %}{% break %}{% endif %}{{ x }}{% endfor %}",
		"{% for x in previous_outputs.w.list %}{% for y in items %}{{ loop.depth }}{{ x }}{{ y.a }}{% endfor %}{% endfor %}",
		"{% for k, v in input.items() %}{{ k }}={{ v }};{% endfor %}", "{% for x in nothing %}a{% else %}empty{% endfor %}",
		"{{ previous_outputs.w.none | default('d') }} {{ missing | default('m') }}",
		"{{ s | truncate(-1) }}", "{{ s | truncate(2, True) }}{{ s | truncate(2, '~') | upper }}{{ s | upper | truncate(2) }}",
		"{{ previous_outputs.w.response | truncate }}{{ previous_outputs.w.list | truncate(3) }}{{ s | truncate(1, 2) }}", "{{ s | nope }}", "{{ s | truncate('x') }}", "{% break %}",
		"{{ missing.attr }}", "{{ get_agent_response() }}", "{{ range(200000) | list }}",
		"{% for x in range(100001) %}{% endfor %}", "{{ s * 100 }}", "{{ 'a' }}{{ 1 }}{{ 2.50 }}{{ true }}",
		"{% for loop in items %}{{ loop.a }}{% endfor %}", "{% for s in items %}{{ s.a }}{% endfor %}{{ s }}",
	} {
		for _, strict := range []bool{false, true} {
			_, _ = renderBoth(t, src, d, Options{Strict: strict}) // renderBoth asserts the two paths agree, errors included
		}
	}
	long, err := Parse("p", "{{ s }}{{ s }}", Options{MaxOutput: 5})
	require.NoError(t, err)
	require.NotNil(t, long.plan)
	_, err = long.Render(d)
	require.ErrorIs(t, err, ErrLimit)
}

// TestPlanCoversLoopPrompts: the shapes of OrKa loop prompts are planned.
func TestPlanCoversLoopPrompts(t *testing.T) {
	for _, src := range []string{
		benchPrompt,
		"{{ previous_outputs.improver.response | truncate(1500) }}",
		"{% if has_past_loops() %}{% for p in get_past_loops() %}- {{ p.insights | truncate(200) }}\n{% endfor %}{% endif %}",
		"{% if get_loop_number() > 1 %}again{% endif %}",
	} {
		tp, err := Parse("p", src, Options{})
		require.NoError(t, err)
		assert.NotNil(t, tp.plan, src)
	}
	for _, src := range []string{"{% set x = 1 %}{{ x }}", "{% macro m() %}{% endmacro %}", "{% autoescape true %}{% endautoescape %}"} {
		tp, err := Parse("p", src, Options{})
		require.NoError(t, err)
		assert.Nil(t, tp.plan, src)
	}
}
