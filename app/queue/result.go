package queue

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop"
)

// Result returns the result of run runID as a *cogloop.Result, read from the
// JSON document its worker recorded: run id, status, errors, warnings, the
// answer and each top-level agent's output (by id), with their usage, and
// the typed results of its top-level loops (Result.Loops: PastLoops,
// BestAnswer, StopReason, each pass's answer); not the budget flag, the
// causes behind Errors, or loops nested in another agent. A run that has not finished, or ended without a
// result, gives an error wrapping [ErrNoResult] that says where it is; a
// run that finished failed gives its result (Status failed, Errors).
func (c *Client) Result(ctx context.Context, runID string) (*cogloop.Result, error) {
	st, err := c.Status(ctx, runID)
	if err != nil {
		return nil, err
	}
	if st.Record == nil || len(st.Record.Result) == 0 {
		why := "state " + st.State
		if st.Record != nil && st.Record.Error != "" {
			why += ": " + st.Record.Error
		} else if st.LastError != "" {
			why += ": " + st.LastError
		}
		return nil, fmt.Errorf("run %s: %w (%s)", runID, ErrNoResult, why)
	}
	loops, err := readLoopRecords(st.Record.LoopResults)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	res, err := parseDocument(st.Record.Result, loops)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runID, err)
	}
	return res, nil
}
