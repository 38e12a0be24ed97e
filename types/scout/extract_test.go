package scout

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariants(t *testing.T) {
	assert.Equal(t, []string{"a"}, variants("a"))
	assert.Equal(t, []string{"a.target", "a.response.target"}, variants("a.target"))
	assert.Equal(t, []string{"loop.response.result.gs", "loop.result.gs", "loop.response.gs"}, variants("loop.response.result.gs"))
}

func TestParseRatings(t *testing.T) {
	r, err := parseRatings("Here: {\"1\": 0.8, \"2\": \"0.3\", \"3\": 7, \"9\": 1, \"x\": 1}", 3)
	require.NoError(t, err)
	assert.Equal(t, map[int]float64{1: 0.8, 2: 0.3, 3: 1}, r, "text numbers read, values clamped, unknown numbers dropped")
	_, err = parseRatings(`{"7": 0.5}`, 3)
	assert.ErrorContains(t, err, "rates none of the 3 candidates")
	_, err = parseRatings(`{1: 0.5}`, 3)
	assert.ErrorContains(t, err, "ratings are not JSON")
}

// Any earlier output and any path_source: findPath answers or errs, never
// panics, and an answer is a non-empty list or a decision.
func FuzzFindPath(f *testing.F) {
	f.Add(`{"p": {"response": {"decision": "commit_path", "target": ["a", "b"]}}}`, "p")
	f.Add(`{"p": {"response": "[\"a\"]"}}`, "p.response")
	f.Add(`{"l": {"result": {"gs": {"decision": "shortlist", "target": [{"node_id": "a"}, {"path": ["b"]}]}}}}`, "l.response.result.gs")
	f.Add(`{"p": {"response": "decision: x\ntarget: [a]"}}`, "p")
	f.Fuzz(func(t *testing.T, view, source string) {
		var v map[string]any
		if json.Unmarshal([]byte(view), &v) != nil || len(source) > 200 {
			return
		}
		got, err := findPath(v, source)
		if err == nil && len(got.ids) == 0 && got.decision == "" {
			t.Fatalf("findPath(%s, %q) gave neither ids nor a decision", view, source)
		}
	})
}
