package cogloop

import "errors"

// ErrRunFailed means the run finished but failed (its final agent failed, a loop
// stopped with stop_reason error, or the run was stopped by a fatal error or a
// cancellation). [Workflow.Run] wraps it together with the first error.
//
// # Errors a caller can act on
//
// This is the one list; each is matched with [errors.Is] or [errors.As] on
// the error [Workflow.Run] returns, or on one of [Result.Errors] (a
// [RunError] unwraps to the failure it records, also one a loop survived):
//
//   - [ErrRunFailed]: the run failed; the result is still returned.
//   - [ErrNoCheckpoint], [ErrWorkflowChanged]: a [WithResume] that cannot
//     continue (no checkpoint; the workflow source changed).
//   - *memory.LeaseHeldError: a resume of a run another process holds.
//   - context.Canceled, context.DeadlineExceeded: the run's context ended it.
//   - spend.ErrBudgetExceeded: a model call was refused by a budget;
//     spend.ErrNoPrice: a cost budget met a model without a price.
//   - agents.ErrEmptyReply: a model answered with no text.
//   - agents.ErrStrict: a warning failed the run under strict mode.
//   - *retry.CallError: a provider call failed, with its HTTP Status, its
//     Class (timeout, rate_limit, server_error) and the server's RetryAfter.
//   - *fault.PathError: where a failure happened; fault.IsFatal reports the
//     failures that stop a run at once (a missing key, 401/403, an unknown
//     model, an exhausted script).
//   - *prompt.RenderError, *cognition.MatchError: a template that could not
//     render, a pattern that could not be applied.
//   - memory.ErrUnavailable, memory.ErrClosed: the store failed.
//
// [Load] and [Parse] return a *load.Error listing every problem with its
// position; queue.ErrDuplicate and queue.ErrNotFound come from package queue.
var ErrRunFailed = errors.New("run failed")
