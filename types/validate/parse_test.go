package validate

import (
	"strings"
	"testing"

	"github.com/cogloop/cogloop/scoring"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loopCriteria(t *testing.T) *criteria {
	t.Helper()
	p, err := scoring.Embedded().Preset("loop_convergence", "moderate")
	require.NoError(t, err)
	return newCriteria(p.Keys())
}

// passedOf lists the criteria that came out true.
func passedOf(ev map[string]map[string]bool, keys []string) []string {
	var out []string
	for _, k := range keys {
		d, c, _ := strings.Cut(k, ".")
		if ev[d][c] {
			out = append(out, k)
		}
	}
	return out
}

func TestParsingLadder(t *testing.T) {
	cs := loopCriteria(t)
	const (
		btp = "improvement.better_than_previous"
		sd  = "improvement.significant_delta"
		at  = "improvement.approaching_target"
		nd  = "stability.not_degrading"
		cd  = "stability.consistent_direction"
		dd  = "convergence.delta_decreasing"
		wt  = "convergence.within_tolerance"
	)
	tests := []struct {
		name   string
		answer string
		how    string
		passed []string
	}{
		{"plain JSON", `{"improvement": {"better_than_previous": true, "significant_delta": false}, "stability": {"not_degrading": true}}`,
			ParsedJSON, []string{btp, nd}},
		{"upper-case categories and criteria", `{"IMPROVEMENT": {"Better_Than_Previous": true}, "CONVERGENCE": {"WITHIN_TOLERANCE": true}}`,
			ParsedJSON, []string{btp, wt}},
		{"string booleans", `{"improvement": {"better_than_previous": "yes", "significant_delta": "PASS", "approaching_target": "no"}, "stability": {"not_degrading": "true", "consistent_direction": "false"}, "convergence": {"delta_decreasing": "1"}}`,
			ParsedJSON, []string{btp, sd, nd, dd}},
		{"numbers and nested verdicts", `{"improvement": {"better_than_previous": 1, "significant_delta": 0, "approaching_target": {"answer": true, "reason": "closer"}}}`,
			ParsedJSON, []string{btp, at}},
		{"JSON in prose", "Sure! Here is the evaluation: {\"stability\": {\"not_degrading\": true, \"consistent_direction\": true}} Hope it helps.",
			ParsedJSON, []string{nd, cd}},
		{"JSON in a code fence", "My verdicts:\n```json\n{\"convergence\": {\"delta_decreasing\": true, \"within_tolerance\": true}}\n```\nThe {braces} in this sentence do not matter.",
			ParsedJSON, []string{dd, wt}},
		{"Python literal", `{'IMPROVEMENT': {'better_than_previous': True, 'significant_delta': False}, 'STABILITY': {'not_degrading': None}}`,
			ParsedJSON, []string{btp}},
		{"nested under a key", `{"boolean_evaluations": {"improvement": {"better_than_previous": true}}, "comment": "ok"}`,
			ParsedJSON, []string{btp}},
		{"flat dotted keys", `{"improvement.better_than_previous": true, "stability.not_degrading": "yes", "convergence.within_tolerance": false}`,
			ParsedJSON, []string{btp, nd}},
		{"JSON without a known category falls through", `{"verdict": "good", "score": 0.9}`,
			ParsedNone, nil},
		{"key: value lines", "better_than_previous: true\nsignificant_delta: false\n- approaching_target = TRUE\n**not_degrading**: yes\nwithin tolerance: pass",
			ParsedKeyValue, []string{btp, at, nd, wt}},
		{"broken JSON read as key: value", `{"IMPROVEMENT": {"better_than_previous": true, "significant_delta": true,}, "STABILITY": {"not_degrading": "false"`,
			ParsedKeyValue, []string{btp, sd}},
		{"all false key: value is still an answer", "better_than_previous: false\nnot_degrading: false",
			ParsedKeyValue, nil},
		{"keywords", "On better_than_previous — yes, clearly. For not_degrading I would say not really. within_tolerance: it is close, correct.",
			ParsedKeywords, []string{btp, wt}},
		{"keywords: the first verdict word decides", "The delta_decreasing criterion is not met, but it is correct that the change is smaller.",
			ParsedKeywords, nil},
		{"keywords: incorrect is not correct", "approaching_target is incorrect here.",
			ParsedKeywords, nil},
		{"garbage", "I cannot evaluate this. ¯\\_(ツ)_/¯ {{{ ]] true true",
			ParsedNone, nil},
		{"empty", "", ParsedNone, nil},
		{"binary noise", strings.Repeat("\x00\xff{", 1000), ParsedNone, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, how := cs.parse(tc.answer)
			assert.Equal(t, tc.how, how)
			assert.Equal(t, tc.passed, passedOf(ev, cs.keys))
			require.Len(t, ev, 3, "every dimension is present")
			n := 0
			for _, d := range ev {
				n += len(d)
			}
			assert.Equal(t, 7, n, "every criterion is present")
		})
	}
}

func TestParsingSharedCriterionNames(t *testing.T) {
	cs := newCriteria([]string{"accuracy.overall", "clarity.overall"})
	ev, how := cs.parse("accuracy.overall: true\nclarity.overall: false")
	assert.Equal(t, ParsedKeyValue, how)
	assert.True(t, ev["accuracy"]["overall"])
	assert.False(t, ev["clarity"]["overall"])
}

func TestParsingIsBounded(t *testing.T) {
	cs := loopCriteria(t)
	long := strings.Repeat("x", maxParse) + " better_than_previous: true"
	ev, how := cs.parse(long)
	assert.Equal(t, ParsedNone, how, "text past the cap is not read")
	assert.False(t, ev["improvement"]["better_than_previous"])
}

func TestRationale(t *testing.T) {
	tests := []struct{ answer, want string }{
		{`{"COMPLETENESS": {"has_all_required_steps": true}, "rationale": "Missing a fallback."}`, "Missing a fallback."},
		{`{"Rationale": "  Case and space.  "}`, "Case and space."},
		{`{"completeness": {"a": true,}, "rationale": "Broken \"JSON\" still has one."}`, `Broken "JSON" still has one.`},
		{"Short prose answer.", "Short prose answer."},
		{strings.Repeat("é", 250), strings.Repeat("é", 200) + "..."},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, rationale(tc.answer))
	}
}

// FuzzParse: any answer gives a verdict for every criterion, never a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"IMPROVEMENT": {"better_than_previous": true}}`, "better_than_previous: yes",
		"```json\n{'stability': {'not_degrading': True}}\n```", "not_degrading ✓", "{{{", "\xff\xfe"} {
		f.Add(s)
	}
	p, err := scoring.Embedded().Preset("loop_convergence", "strict")
	require.NoError(f, err)
	cs := newCriteria(p.Keys())
	f.Fuzz(func(t *testing.T, s string) {
		ev, how := cs.parse(s)
		require.NotEmpty(t, how)
		n := 0
		for _, d := range ev {
			n += len(d)
		}
		require.Equal(t, 7, n)
		_ = rationale(s)
	})
}
