package prompt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkNamesReplay parses src twice and checks that the names replayed from
// the rewrite's record (names.go) are those a second walk of the rewritten
// tree finds: names, outputs and free variables.
func checkNamesReplay(t *testing.T, src string, opts Options) {
	t.Helper()
	replayed, err := Parse("t", src, opts)
	if err != nil {
		return
	}
	if !replayed.plain {
		require.NotNil(t, replayed.walked, "the rewrite recorded no walk for %q", src)
	}
	walked, err := Parse("t", src, opts)
	require.NoError(t, err)
	noReplay = true
	wantNames := walked.Names()
	noReplay = false
	assert.Equal(t, wantNames, replayed.Names(), "names of %q (strict=%v)", src, opts.Strict)
	ids, all := replayed.Outputs()
	wantIDs, wantAll := walked.Outputs()
	assert.Equal(t, wantIDs, ids, "outputs of %q", src)
	assert.Equal(t, wantAll, all, "all outputs of %q", src)
	assert.Equal(t, walked.Missing(Data{}), replayed.Missing(Data{}), "free variables of %q", src)
}

func TestNamesReplayMatchesWalkOnRepoTemplates(t *testing.T) {
	srcs := repoTemplates(t)
	require.Greater(t, len(srcs), 300)
	for _, src := range srcs {
		for _, strict := range []bool{false, true} {
			checkNamesReplay(t, src, Options{Strict: strict})
		}
	}
}

func TestNamesReplayMatchesWalkOnConstructs(t *testing.T) {
	for _, src := range []string{
		"{% set n = 1 %}{% for a, b in d if a %}{{ a }}{{ b }}{{ loop.index }}{% else %}{{ e }}{% endfor %}{{ n }}",
		"{% macro m(p, q=1) %}{{ p }}{{ q }}{{ varargs }}{% endmacro %}{{ m(1, k=previous_outputs.w) }}{% call m(2) %}{{ caller }}{% endcall %}",
		"{% with w = previous_outputs['x'] %}{{ w.y }}{% endwith %}{% filter upper %}{{ z }}{% endfilter %}",
		"{{ f(a=1 if y else 2, b=previous_outputs.get('q'))[0:1 if z else 2] }}{{ (x | default({})).items() }}",
		"{{ 'a' if y else 'b' if z else 'c' }}{% set v = [1 if y, (2 if z else 3)] %}{{ (v | first).real }}",
		"{{ x.0 }}{{ x[0][1] }}{{ x.a.b * 2 + c ** 3 // d % e ~ g / h }}{{ get_agent_response('a') }}",
		"{% if has_context('c') %}{{ previous_outputs.c }}{% elif u is defined %}{{ u }}{% endif %}{{ safe_get_response('b', 'x') }}",
		"{% set ns = namespace(k=1) %}{% set ns.k = ns.k + 1 %}{{ ns.k }}{{ {'k': v, 'l': [w]} | tojson }}",
	} {
		for _, strict := range []bool{false, true} {
			checkNamesReplay(t, src, Options{Strict: strict})
		}
	}
}
