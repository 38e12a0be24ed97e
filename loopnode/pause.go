package loopnode

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
)

// pauseAsked returns a pause interrupt when the run was asked to pause
// (cogloop pause, SIGTSTP, SIGUSR1 under a worker), checked at each pass
// boundary after the first pass this call ran. The checkpoint holds every
// pass so far: continuing the run (--resume) starts with the next one.
func (n *Node) pauseAsked(ctx context.Context, in agents.Input, loops int) error {
	if in.Run == nil || in.Run.Paused == nil || !in.Run.Paused(ctx) {
		return nil
	}
	in.Run.Emit(event.Event{Kind: event.RunPause, Node: in.Path, Agent: n.id, Type: "loop",
		Message: fmt.Sprintf("paused after pass %d", loops), Data: map[string]any{"after_pass": loops}})
	path := in.Path
	if path == "" {
		path = n.id
	}
	return &fault.Interrupt{Status: fault.Paused, Path: path}
}
