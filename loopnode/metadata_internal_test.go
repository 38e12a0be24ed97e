package loopnode

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/prompt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bare {{ name }} past_loops_metadata template takes the variable's value
// without rendering: it must be what rendering gives.
func TestBareMetadataIsWhatEvalGives(t *testing.T) {
	results := []cognition.Result{{ID: "scorer", Value: map[string]any{
		"response": "fine\nREASONING_QUALITY: 0.7\nCONVERGENCE_TREND: IMPROVING"}}}
	contexts := []*entryContext{
		{loop: 3, score: 0.62, results: results, input: "Explain recursion", insights: "shows the base case",
			improvements: "needs a picture", mistakes: "overlooked the stack", timestamp: "2026-11-23T21:00:00.000001"},
		{loop: 1, score: 1, input: map[string]any{"task": "x", "n": 2.0}},
		{loop: 10, score: 0, input: nil, insights: "ünïcode", timestamp: "2026-01-01T00:00:00.000000"},
	}
	for name := range entryVars {
		tmpl, err := prompt.Parse("m", "{{ "+name+" }}", prompt.Options{})
		require.NoError(t, err)
		m := newMeta("k", tmpl)
		require.Equal(t, name, m.bare, "{{ %s }} is bare", name)
		for i, ec := range contexts {
			vars := ec.vars()
			want, err := tmpl.Eval(prompt.Data{Input: vars["input"], LoopNumber: ec.loop, Vars: vars})
			require.NoError(t, err)
			assert.Equal(t, want, ec.value(name), "%s in context %d", name, i)
		}
	}
	for _, src := range []string{"{{ score | round(2) }}", "{{ score }} ", "{{- score }}", "{{ other_name }}", "{{ score }}{{ score }}"} {
		tmpl, err := prompt.Parse("m", src, prompt.Options{})
		require.NoError(t, err)
		assert.Empty(t, newMeta("k", tmpl).bare, "%q is rendered", src)
	}
}

// The default metadata map gives the entry every default key, with the
// values of the pass.
func TestBuildEntryDefaultMap(t *testing.T) {
	var metas []metaTemplate
	for _, k := range defaultMetadataKeys {
		tmpl, err := prompt.Parse(k, "{{ "+k+" }}", prompt.Options{})
		require.NoError(t, err)
		metas = append(metas, newMeta(k, tmpl))
	}
	ec := &entryContext{loop: 2, score: 0.5, insights: "i", improvements: "", mistakes: "m",
		other: map[string]string{"risks": "r"}}
	entry, warns := buildEntry(metas, ec)
	assert.Empty(t, warns)
	assert.Equal(t, 2, entry["loop_number"])
	assert.Equal(t, 0.5, entry["score"])
	assert.Equal(t, "i", entry["insights"])
	assert.Equal(t, "", entry["improvements"])
	assert.Equal(t, "m", entry["mistakes"])
	assert.Equal(t, "r", entry["risks"])
	ts, ok := entry["timestamp"].(string)
	require.True(t, ok)
	_, err := time.ParseInLocation("2006-01-02T15:04:05.000000", ts, time.Local)
	assert.NoError(t, err, ts)
}

// isoMicro writes what time.Format writes.
func TestIsoMicroIsFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{time.Now(), time.Unix(0, 0), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(-5, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(12000, 3, 1, 0, 0, 0, 0, time.UTC)}
	zone := time.FixedZone("x", -7*3600-30*60)
	for range 2000 {
		times = append(times, time.Unix(r.Int64N(1<<35)-1<<33, r.Int64N(1e9)).In(zone))
	}
	for _, tm := range times {
		assert.Equal(t, tm.Format("2006-01-02T15:04:05.000000"), isoMicro(tm))
	}
}

// recentLessons is the last five non-empty texts, newest first.
func TestRecentLessons(t *testing.T) {
	past := []map[string]any{{"insights": "a"}, {"insights": ""}, {"insights": "b"}, {}, {"insights": "c"},
		{"insights": nil}, {"insights": 1.0}}
	assert.Equal(t, "1.0 | c | b", recentLessons(past, "insights"))
	assert.Equal(t, "a", recentLessons(past[:2], "insights"))
	assert.Equal(t, "", recentLessons(nil, "insights"))
}

// past_loops_metadata values reach the next pass as Python's str() writes
// them (issue 28 B2): str(1500000.0) is '1500000.0' and str(['a', 'b']) is
// "['a', 'b']" in CPython 3.11, not 1.5e+06 or JSON.
func TestDynamicMetadataIsPythonStr(t *testing.T) {
	var metas []metaTemplate
	for _, k := range []string{"budget", "tags", "nested"} {
		tmpl, err := prompt.Parse(k, "{{ x }}", prompt.Options{})
		require.NoError(t, err)
		metas = append(metas, newMeta(k, tmpl))
	}
	past := []map[string]any{{"budget": 1500000.0, "tags": []any{"a", "b"},
		"nested": map[string]any{"ok": true, "n": nil}}}
	got := dynamicMetadata(metas, past)
	assert.Equal(t, "1500000.0", got["budget"])
	assert.Equal(t, "['a', 'b']", got["tags"])
	assert.Equal(t, "{'n': None, 'ok': True}", got["nested"])
}
