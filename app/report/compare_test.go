package report

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogloop/cogloop/app/records"
)

func TestWordDiff(t *testing.T) {
	parts, tooLong := wordDiff("the cat sat on the mat", "the dog sat on the mat today")
	assert.False(t, tooLong)
	var kept, added, removed []string
	var now strings.Builder
	for _, p := range parts {
		switch p.Op {
		case "ins":
			added = append(added, strings.TrimSpace(p.Text))
		case "del":
			removed = append(removed, strings.TrimSpace(p.Text))
		default:
			kept = append(kept, strings.TrimSpace(p.Text))
		}
		if p.Op != "del" {
			now.WriteString(p.Text)
		}
	}
	assert.Equal(t, []string{"cat"}, removed)
	assert.Equal(t, []string{"dog", "today"}, added)
	assert.Equal(t, []string{"the", "sat on the mat"}, kept)
	assert.Equal(t, "the dog sat on the mat today", now.String(), "what is kept and added is the new answer")
	_, tooLong = wordDiff(strings.Repeat("w ", maxDiffWords+1), "w")
	assert.True(t, tooLong)
}

// A running run's pass under way shows as running, not cut short, and is
// not on the chart; the same record read as ended-without-end says cut short.
func TestRunningPassIsNotCutShort(t *testing.T) {
	s := records.Summary{RunID: "r", Status: StatusRunning, Loops: []records.Loop{{ID: "l", Path: "l", Shape: "l", MaxLoops: 3, Threshold: 0.8,
		Passes: []records.Pass{{Number: 1, Completed: true, ScoreFound: true, Score: 0.5}, {Number: 2}}}}}
	var b strings.Builder
	assert.NoError(t, WriteBody(&b, s))
	assert.Contains(t, b.String(), `<span class="muted">running</span>`)
	assert.NotContains(t, b.String(), "cut short</span>")
	assert.Equal(t, 1, strings.Count(b.String(), `<circle class="pass`))

	s.Status = records.StatusIncomplete
	b.Reset()
	assert.NoError(t, WriteBody(&b, s))
	assert.Contains(t, b.String(), "cut short")
	assert.Equal(t, 2, strings.Count(b.String(), `<circle class="pass`))
}
