package cogloop

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
)

// A fatal error reported by the failing agent and again by every step it
// passes up through is one error, at the agent's path; a loop that stopped with
// an error is one too, under the loop's id.
func TestCollectorRecordsEachFailureOnce(t *testing.T) {
	var forwarded int
	c := &collector{next: func(event.Event) { forwarded++ }}
	fatal := "improve › iteration 1 › critic: no API key (set OPENAI_API_KEY)"
	c.observe(event.Event{Kind: event.AgentEnd, Node: "improve › iteration 1 › critic", Agent: "critic", Error: fatal})
	c.observe(event.Event{Kind: event.AgentEnd, Node: "improve", Agent: "improve", Error: fatal})
	c.observe(event.Event{Kind: event.AgentEnd, Node: "improve › iteration 1 › critic", Agent: "critic", Error: "again"})
	c.observe(event.Event{Kind: event.LoopEnd, Node: "other", Agent: "other", Error: "other › iteration 2: iteration 2 was not persisted",
		Data: map[string]any{"stop_reason": "error"}})
	c.observe(event.Event{Kind: event.LoopEnd, Node: "fine", Agent: "fine", Data: map[string]any{"stop_reason": "max_loops"}})
	c.observe(event.Event{Kind: event.Warning, Node: "improve › iteration 1", Agent: "improve", Message: "no score", Data: map[string]any{"code": "no_score"}})
	assert.Equal(t, 6, forwarded)
	assert.True(t, c.loopErr)
	assert.Equal(t, []RunError{
		{Path: "improve › iteration 1 › critic", Agent: "critic", Message: "no API key (set OPENAI_API_KEY)"},
		{Path: "other › iteration 2", Agent: "other", Message: "iteration 2 was not persisted"},
	}, c.errors)
	assert.Equal(t, []RunWarning{{Path: "improve › iteration 1", Agent: "improve", Code: "no_score", Message: "no score"}}, c.warnings)
}

// Without an observer of its own a run builds only the events the collector
// reads (collects): every other kind must leave the collector as it was.
func TestCollectsEveryKindTheCollectorReads(t *testing.T) {
	kinds := []string{event.RunStart, event.RunEnd, event.AgentStart, event.AgentEnd,
		event.AgentRetry, event.LoopStart, event.LoopIteration, event.LoopPassStart,
		event.LoopCheck, event.LoopEnd, event.BranchStart, event.BranchEnd, event.Warning}
	for _, kind := range kinds {
		c := &collector{}
		c.observe(event.Event{Kind: kind, Node: "a", Agent: "a", Error: "failed", Message: "m",
			Data: map[string]any{"stop_reason": "error", "code": "c"}})
		read := len(c.errors) > 0 || len(c.warnings) > 0 || c.loopErr
		wanted := collects(kind) || (kind == event.AgentEnd && collects(agents.WantFailures))
		assert.Equal(t, read, wanted, "kind %s", kind)
	}
	// Of agent.end, only failed steps' events are read: the others need not
	// be built.
	assert.False(t, collects(event.AgentEnd))
	c := &collector{}
	c.observe(event.Event{Kind: event.AgentEnd, Node: "a", Agent: "a", Response: "ok"})
	assert.Empty(t, c.errors)
	assert.Empty(t, c.warnings)
	assert.False(t, c.loopErr)
}
