package fault

import (
	"errors"
	"fmt"
)

// Interrupt statuses: why a run stopped without failing.
const (
	// Waiting: a human step waits for an answer (cogloop answer).
	Waiting = "waiting"
	// Paused: the run was asked to stop at the next pass boundary (cogloop pause).
	Paused = "paused"
)

// Interrupt stops a run that is neither done nor failed: a human step waits
// for an answer, or a pause was asked for. Every runner (sequence, fork,
// failover, retry, timeout, loop) passes it up unchanged: it is never a
// failed step, never retried, never counted by on_error or
// max_failed_passes. The run saves what it finished before returning it, so
// continuing it (the same checkpoint path as a resume) repeats no model call.
type Interrupt struct {
	Status string // [Waiting] or [Paused]
	Path   string // where the run stopped ("review" or "improve › iteration 2 › judge")
	Agent  string // the agent that waits (empty for a pause)
	// Question is what the run waits for (a *human.Question), nil for a pause.
	Question any
}

func (e *Interrupt) Error() string {
	if e.Status == Paused {
		return fmt.Sprintf("%s: the run paused (continue it with --resume)", e.Path)
	}
	return fmt.Sprintf("%s: agent %q waits for an answer", e.Path, e.Agent)
}

// AsInterrupt returns the [Interrupt] err is or wraps, or nil.
func AsInterrupt(err error) *Interrupt {
	var in *Interrupt
	if errors.As(err, &in) {
		return in
	}
	return nil
}

// Stops reports whether err must end the run at once rather than become a
// failed step: a fatal error or an interrupt.
func Stops(err error) bool { return IsFatal(err) || AsInterrupt(err) != nil }
