package orchestrator

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Defined lists the ids of this workflow's agents list, in file order.
func (sb *scopeBuilder) Defined() []string {
	out := make([]string, len(sb.s.order))
	for i, d := range sb.s.order {
		out[i] = d.id
	}
	return out
}

// TypeOf reports the type of the agent defined with id in this workflow or an
// enclosing one, without building it.
func (sb *scopeBuilder) TypeOf(id string) (string, bool) {
	d := sb.s.lookup(id)
	if d == nil {
		return "", false
	}
	return d.typ, true
}

// warnRunTwice warns about a queue entry that another queued agent also runs
// itself (a fork's branch agent, a router's route): it would run twice.
func warnRunTwice(steps []step, positions []load.Pos, probs *load.Problems) {
	runner := map[string]step{}
	for _, s := range steps {
		r, ok := agents.Unwrap(s.Agent).(agents.Referrer)
		if !ok {
			continue
		}
		for _, id := range r.Refs() {
			if _, seen := runner[id]; !seen {
				runner[id] = s
			}
		}
	}
	if len(runner) == 0 {
		return
	}
	for i, s := range steps {
		if r, ok := runner[s.ID]; ok && r.ID != s.ID {
			probs.Warnf(positions[i], "orchestrator: agents lists %q, which %s %q also runs; it will run twice (remove it from this list unless that is what you want)", s.ID, r.Type, r.ID)
		}
	}
}
