package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/cogloop/cogloop"
)

// ErrNotStopped means [Continue] named a run that neither waits nor paused.
var ErrNotStopped = errors.New("the run neither waits nor paused")

// Continue puts run runID, which waits (and was answered) or paused, back
// in its queue, to be taken by any worker: it resumes from its
// checkpoint. It fails with [ErrNotFound] when no queue holds the run, and
// with [ErrNotStopped] when the run is queued, running or ended.
func Continue(ctx context.Context, c *Client, runID string) error {
	qs, err := c.insp.Queues()
	if err != nil {
		return fmt.Errorf("list queues: %w", err)
	}
	for _, q := range qs {
		info, err := c.insp.GetTaskInfo(q, runID)
		switch {
		case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
			continue
		case err != nil:
			return fmt.Errorf("run %s in queue %s: %w", runID, q, err)
		}
		var r Record
		_ = json.Unmarshal(info.Result, &r)
		if info.State != asynq.TaskStateCompleted || (r.State != Waiting && r.State != Paused) {
			state := stateName(info.State)
			if r.State != "" {
				state = r.State
			}
			return fmt.Errorf("run %s: %w (it is %s in queue %s)", runID, ErrNotStopped, state, q)
		}
		if err := c.insp.DeleteTask(q, runID); err != nil {
			return fmt.Errorf("run %s: take its stopped task out of queue %s: %w", runID, q, err)
		}
		task := asynq.NewTask(taskType, info.Payload, asynq.TaskID(runID), asynq.Queue(q),
			asynq.MaxRetry(info.MaxRetry), asynq.Retention(info.Retention), asynq.Timeout(info.Timeout))
		if _, err := c.client.EnqueueContext(ctx, task); err != nil {
			return fmt.Errorf("run %s: put it back in queue %s: %w", runID, q, err)
		}
		return nil
	}
	return fmt.Errorf("run %s: %w", runID, ErrNotFound)
}

// started and ended track the runs this worker runs, for [Worker.PauseAll].
func (w *Worker) started(runID, ns string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running[runID] = ns
}

func (w *Worker) ended(runID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running, runID)
}

// PauseAll asks every run this worker runs to pause at its next pass
// boundary (what SIGUSR1 does to `cogloop worker`): each ends paused and
// releases the worker; [Continue] puts it back. It returns the runs asked.
func (w *Worker) PauseAll(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	runs := make(map[string]string, len(w.running))
	for id, ns := range w.running {
		runs[id] = ns
	}
	w.mu.Unlock()
	var asked []string
	var errs []error
	for id, ns := range runs {
		store, err := w.store(ctx, ns)
		if err == nil {
			err = cogloop.RequestPause(ctx, store, id)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		asked = append(asked, id)
	}
	return asked, errors.Join(errs...)
}
