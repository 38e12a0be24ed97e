package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
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
		if e.Kind == agents.EventAgentDelta {
			deltas++
		}
	}
	assert.Positive(t, deltas, "-v asks for agent.delta events")

	code, _, errs = runCLI(t, "run", hello, "topic", "--script", helloScript, "--trace", trace)
	require.Equal(t, 0, code, errs)
	for _, e := range readTrace(t, trace) {
		assert.NotEqual(t, agents.EventAgentDelta, e.Kind, "no deltas unless someone asks")
		assert.NotEqual(t, agents.EventModelCall, e.Kind, "no model.call events unless someone asks")
	}
}

// Branches streaming at once never share a line.
func TestLivePrinterKeepsAgentsOnTheirLines(t *testing.T) {
	var b strings.Builder
	p := newLivePrinter(&b)
	d := func(node, text string) {
		p.Observe(agents.Event{Kind: agents.EventAgentDelta, Node: node, Attempt: 1, Response: text})
	}
	d("f › a", "one ")
	d("f › b", "uno ")
	d("f › a", "two\nthree")
	p.Observe(agents.Event{Kind: agents.EventAgentEnd, Node: "f › a", Response: "one two\nthree"})
	d("f › b", "dos")
	p.Observe(agents.Event{Kind: agents.EventAgentDelta, Node: "f › b", Attempt: 2, Response: "again"})
	p.Observe(agents.Event{Kind: agents.EventAgentEnd, Node: "f › b", Error: "boom"})
	p.Observe(agents.Event{Kind: agents.EventAgentEnd, Node: "c", Response: "not streamed"})
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

func readTrace(t *testing.T, path string) []agents.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var events []agents.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e agents.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		events = append(events, e)
	}
	return events
}
