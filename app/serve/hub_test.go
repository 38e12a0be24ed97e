package serve

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
)

// A client that reads nothing is dropped once its buffer is full: the
// events go on to the others, and the reader of the record never waits.
func TestASlowClientIsDroppedNotWaitedFor(t *testing.T) {
	dir := records.Dir{Path: t.TempDir()}
	w, _, err := dir.Create("r", false, nil)
	require.NoError(t, err)
	h := &hub{path: filepath.Join(dir.Path, "r.jsonl"), clients: map[*client]struct{}{}}
	slow := h.subscribe(0, 2)
	fast := h.subscribe(0, 100)
	for i := 0; i < 5; i++ {
		w.Observe(event.Event{Kind: event.AgentStart})
		h.mu.Lock()
		h.read() // returns although slow takes nothing
		h.mu.Unlock()
		if i == 1 {
			got, ok := h.take(fast)
			require.True(t, ok)
			assert.Len(t, got, 2)
		}
	}
	require.NoError(t, w.Close())
	_, ok := h.take(slow)
	assert.False(t, ok, "the slow client fell 3 events behind its limit of 2: dropped")
	assert.Len(t, slow.notify, 1, "and told so")
	got, ok := h.take(fast)
	require.True(t, ok, "the fast one lags 3 of its 100")
	require.Len(t, got, 3)
	assert.Equal(t, 3, got[0].ID)
	assert.Equal(t, 0, h.leave(fast), "the slow client is gone already")

	// a dropped client reconnects after what it saw, and gets the rest
	again := h.subscribe(2, 2)
	rest, ok := h.take(again)
	require.True(t, ok, "a backlog is not lag")
	require.Len(t, rest, 3)
	assert.Equal(t, 3, rest[0].ID)
}

// Lines that are not events (a killed run's cut line) are left out, as
// records.Read leaves them out, so ids match the record's events; a line
// not yet ended waits for its end.
func TestHubReadsWholeEventLinesOnly(t *testing.T) {
	h := &hub{clients: map[*client]struct{}{}}
	h.lines([]byte(`{"kind":"run.start"}` + "\n" + `{"kind":"agent.st`))
	require.Len(t, h.events, 1)
	h.lines([]byte("\n" + `{"kind":"agent.end"}` + "\n" + `{"kind":"run.`))
	require.Len(t, h.events, 2, "the cut line is not an event")
	assert.Equal(t, "agent.end", h.events[1].Kind)
	h.lines([]byte(`end"}` + "\n"))
	require.Len(t, h.events, 3)
	assert.Equal(t, message{ID: 3, Kind: "run.end", Data: []byte(`{"kind":"run.end"}`)}, h.events[2])
}
