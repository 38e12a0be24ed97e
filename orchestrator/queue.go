package orchestrator

import (
	"github.com/cogloop/cogloop/agents/load"
	"strings"
)

// order sorts the queue by depends_on, stably: an agent runs after the agents it
// depends on, and otherwise keeps its place in the list. A dependency outside the
// queue is a warning (it never runs here); a cycle is an error naming its members.
func order(steps []step, probs *load.Problems, pos load.Pos) []step {
	inQueue := make(map[string]bool, len(steps))
	for _, s := range steps {
		inQueue[s.ID] = true
	}
	for _, s := range steps {
		for _, d := range s.deps {
			if !inQueue[d] {
				probs.Warnf(pos, "agent %q depends on %q, which is not in the orchestrator's agents list; the dependency is ignored", s.ID, d)
			}
		}
	}
	placed := make(map[string]bool, len(steps))
	out := make([]step, 0, len(steps))
	for len(out) < len(steps) {
		i := nextReady(steps, inQueue, placed)
		if i < 0 {
			var cycle []string
			for _, s := range steps {
				if !placed[s.ID] {
					cycle = append(cycle, s.ID)
				}
			}
			probs.Errorf(pos, "depends_on forms a cycle among %s; remove one of the dependencies", strings.Join(cycle, ", "))
			return steps
		}
		placed[steps[i].ID] = true
		out = append(out, steps[i])
	}
	return out
}

// nextReady is the index of the first step not placed yet whose
// dependencies in the queue are all placed (a step's dependency on itself
// does not count); -1 when there is none (the rest form a cycle).
func nextReady(steps []step, inQueue, placed map[string]bool) int {
	for i, s := range steps {
		if !placed[s.ID] && ready(s, inQueue, placed) {
			return i
		}
	}
	return -1
}

func ready(s step, inQueue, placed map[string]bool) bool {
	for _, d := range s.deps {
		if inQueue[d] && !placed[d] && d != s.ID {
			return false
		}
	}
	return true
}
