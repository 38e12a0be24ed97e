package orchestrator

import (
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
)

// LoopShape is the structure of one loop of a workflow: what a run's
// checkpoint depends on, so what a fork of the run may not change.
type LoopShape struct {
	// Path is the loop's id after the ids of the loops it is nested in:
	// "outer › inner".
	Path string `json:"path"`
	// Agents are the ids its internal workflow runs, in order.
	Agents []string `json:"agents"`
	// MaxLoops is its max_loops.
	MaxLoops int `json:"max_loops"`
}

// looper is a loop node (loopnode.Node): a workflow it builds is a loop's
// internal workflow.
type looper interface{ MaxLoops() int }

// Loops lists the shapes of the workflow's loops, nested ones too, in the
// order they were built (top level only; nil for a nested workflow).
func (w *Workflow) Loops() []LoopShape { return w.loops }

// loopShapes reads the loops of every scope b built.
func (b *builder) loopShapes() []LoopShape {
	var out []LoopShape
	for _, s := range b.scopes {
		if s.owner == nil || s.owner.agent == nil || s.wf == nil {
			continue
		}
		l, ok := agents.Unwrap(s.owner.agent).(looper)
		if !ok {
			continue
		}
		path := []string{s.owner.id}
		for sc := s.parent; sc != nil; sc = sc.parent {
			if sc.owner == nil || sc.owner.agent == nil {
				continue
			}
			if _, ok := agents.Unwrap(sc.owner.agent).(looper); ok {
				path = append([]string{sc.owner.id}, path...)
			}
		}
		out = append(out, LoopShape{Path: strings.Join(path, fault.PathSep), Agents: s.wf.Queue(), MaxLoops: l.MaxLoops()})
	}
	return out
}
