package report_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
)

// The report says who answered what, when and after how long, and what a
// waiting run waits for.
func TestReportShowsHumans(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	events := []event.Event{
		{Kind: event.RunStart, Time: at, Run: "r", Node: "wf"},
		{Kind: event.HumanWait, Time: at, Node: "ok", Agent: "ok", Message: "Publish it?", Data: map[string]any{"kind": "approve"}},
		{Kind: event.HumanAnswer, Time: at.Add(90 * time.Second), Node: "ok", Agent: "ok", Response: "APPROVED\nfine",
			Data: map[string]any{"kind": "approve", "answered_by": "ann", "comment": "fine", "waited_ms": float64(90000)}},
		{Kind: event.HumanWait, Time: at, Node: "second", Agent: "second", Message: "Which colour?", Data: map[string]any{"kind": "choice"}},
		{Kind: event.RunEnd, Time: at, Node: "wf", Data: map[string]any{"status": "waiting"}},
	}
	s := records.Summarize(events)
	require.Len(t, s.Humans, 2)
	assert.Equal(t, 90*time.Second, s.Humans[0].Waited)
	var b bytes.Buffer
	require.NoError(t, report.Write(&b, s))
	html := b.String()
	assert.Contains(t, html, "Questions to people")
	assert.Contains(t, html, "ann")
	assert.Contains(t, html, "APPROVED\nfine")
	assert.Contains(t, html, `<b>The run waits for an answer</b>: agent <span class="mono">second</span> (choice)`)
}
