package queue

import (
	"errors"

	"github.com/hibiken/asynq"
)

var (
	// ErrDuplicate means a run with this id was submitted already (it may be
	// queued, running, done or archived).
	ErrDuplicate = errors.New("run id already submitted")

	// ErrNotFound means no queue holds a run with this id (never submitted, or
	// its retention time passed).
	ErrNotFound = errors.New("no such run in the queues")

	// ErrNoResult means the run has no result (yet): it is queued, running or
	// retrying, or it ended without one (archived before it could run).
	ErrNoResult = errors.New("the run has no result")
)

// permanentError is a failure repetition cannot fix: asynq archives the
// task instead of retrying it.
type permanentError struct{ err error }

func permanent(err error) error { return &permanentError{err} }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Is makes a permanent error asynq.SkipRetry for asynq.
func (e *permanentError) Is(target error) bool { return target == asynq.SkipRetry }

// drainedError hands a run back to the queue when its worker drains; it is
// not a failure.
type drainedError struct{}

func (e drainedError) Error() string {
	return "the worker drained (shutting down): the run goes back to the queue and resumes from its last completed pass"
}
