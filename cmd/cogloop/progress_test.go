package main

import (
	"bytes"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/stretchr/testify/assert"
)

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	p.Observe(agents.Event{Kind: agents.EventAgentStart, Node: "improvement_loop › iteration 3 › scorer"})
	p.Observe(agents.Event{Kind: agents.EventLoopIteration, Node: "improvement_loop",
		Data: map[string]any{"loop_number": 3, "max_loops": 5, "score": 0.72, "best": 0.72}})
	p.Observe(agents.Event{Kind: agents.EventAgentEnd, Node: "ignored"})
	p.Done()
	out := buf.String()
	assert.Contains(t, out, "\rrunning improvement_loop › iteration 3 › scorer")
	assert.Contains(t, out, "\rloop improvement_loop 3/5 score 0.72 (best 0.72)")
	assert.NotContains(t, out, "ignored")
	assert.True(t, bytes.HasSuffix(buf.Bytes(), []byte("\r")), "Done clears the line")
	assert.False(t, isTerminal(&buf))
}
