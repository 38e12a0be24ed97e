package main

import (
	"encoding/json"
	"github.com/cogloop/cogloop/agents/event"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVerboseStreamsRepliesOnce(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errs := runCLI(t, "run", hello, "topic", "--script", helloScript, "-v", "--trace", trace)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "writer│ Round and round we go,\nwriter│ each pass a little wiser —\nwriter│ the loop learns its way.\n")
	assert.Contains(t, errs, "editor│ Round and round we go,\neditor│ each pass a little wiser:\n")
	assert.Equal(t, 1, strings.Count(errs, "writer│ Round and round"), "a streamed reply is not printed again at the end")
	events := readTrace(t, trace)
	var deltas int
	for _, e := range events {
		if e.Kind == event.AgentDelta {
			deltas++
		}
	}
	assert.Positive(t, deltas, "-v asks for agent.delta events")

	code, _, errs = runCLI(t, "run", hello, "topic", "--script", helloScript, "--trace", trace)
	require.Equal(t, 0, code, errs)
	for _, e := range readTrace(t, trace) {
		assert.NotEqual(t, event.AgentDelta, e.Kind, "no deltas unless someone asks")
		assert.NotEqual(t, event.ModelCall, e.Kind, "no model.call events unless someone asks")
	}
}

// Branches streaming at once never share a line.
func TestLivePrinterKeepsAgentsOnTheirLines(t *testing.T) {
	var b strings.Builder
	p := newLivePrinter(&b)
	d := func(node, text string) {
		p.Observe(event.Event{Kind: event.AgentDelta, Node: node, Attempt: 1, Response: text})
	}
	d("f › a", "one ")
	d("f › b", "uno ")
	d("f › a", "two\nthree")
	p.Observe(event.Event{Kind: event.AgentEnd, Node: "f › a", Response: "one two\nthree"})
	d("f › b", "dos")
	p.Observe(event.Event{Kind: event.AgentDelta, Node: "f › b", Attempt: 2, Response: "again"})
	p.Observe(event.Event{Kind: event.AgentEnd, Node: "f › b", Error: "boom"})
	p.Observe(event.Event{Kind: event.AgentEnd, Node: "c", Response: "not streamed"})
	assert.Equal(t, "f › a│ one \n"+
		"f › b│ uno \n"+
		"f › a│ two\n"+
		"f › a│ three\n"+
		"f › b│ dos\n"+
		"f › b│ [attempt 2]\n"+
		"f › b│ again\n"+
		"f › b│ error: boom\n"+
		"c│ not streamed\n", b.String())
}

func readTrace(t *testing.T, path string) []event.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var events []event.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e event.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		events = append(events, e)
	}
	return events
}
