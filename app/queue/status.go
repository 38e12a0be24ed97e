package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// States of a run. A [Status]'s State is asynq's task state: queued,
// scheduled, running, retrying, done or archived. A [Record]'s State is what
// the worker says: running, done, failed or drained.
const (
	Queued    = "queued"
	Scheduled = "scheduled"
	Running   = "running"
	Retrying  = "retrying"
	Done      = "done"     // the task completed; its record says done (ok) or failed
	Archived  = "archived" // failed for good: not retried
	Failed    = "failed"   // record: the run finished failed, or cannot run
	Drained   = "drained"  // record: the worker drained the run back to its queue
	Waiting   = "waiting"  // record: the run waits for an answer; it released its worker ([Continue])
	Paused    = "paused"   // record: the run paused at a pass boundary; it released its worker ([Continue])
)

func stateName(s asynq.TaskState) string {
	switch s {
	case asynq.TaskStatePending:
		return Queued
	case asynq.TaskStateScheduled:
		return Scheduled
	case asynq.TaskStateActive:
		return Running
	case asynq.TaskStateRetry:
		return Retrying
	case asynq.TaskStateArchived:
		return Archived
	case asynq.TaskStateCompleted:
		return Done
	}
	return s.String()
}

// Status is where a run is.
type Status struct {
	RunID string `json:"run_id"`
	Queue string `json:"queue"`
	// State is queued, scheduled, running, retrying, done or archived.
	State string `json:"state"`
	// Worker is the worker running it (host:pid), while running.
	Worker string `json:"worker,omitempty"`
	// Orphaned: the worker running it stopped extending its lease (it died);
	// asynq re-delivers the run 30 s after the lease expired.
	Orphaned bool `json:"orphaned,omitempty"`
	// Retried and MaxRetry count failures (a drained run is not one).
	Retried  int `json:"retried"`
	MaxRetry int `json:"max_retry"`
	// LastError is the error of the last failed attempt.
	LastError string `json:"last_error,omitempty"`
	// NextAt is when a retrying or scheduled run is due.
	NextAt time.Time `json:"next_at,omitzero"`
	// Record is what the workers wrote (nil before the first delivery).
	Record *Record `json:"record,omitempty"`
}

// Status finds run runID in every queue.
func (c *Client) Status(ctx context.Context, runID string) (*Status, error) {
	qs, err := c.insp.Queues()
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info, err := c.insp.GetTaskInfo(q, runID)
		switch {
		case errors.Is(err, asynq.ErrTaskNotFound), errors.Is(err, asynq.ErrQueueNotFound):
			continue
		case err != nil:
			return nil, fmt.Errorf("run %s in queue %s: %w", runID, q, err)
		}
		return c.status(info)
	}
	return nil, fmt.Errorf("run %s: %w (never submitted to this Redis, or finished longer ago than its retention)", runID, ErrNotFound)
}

func (c *Client) status(info *asynq.TaskInfo) (*Status, error) {
	st := &Status{RunID: info.ID, Queue: info.Queue, State: stateName(info.State), Orphaned: info.IsOrphaned,
		Retried: info.Retried, MaxRetry: info.MaxRetry, LastError: info.LastErr}
	if st.State == Retrying || st.State == Scheduled {
		st.NextAt = info.NextProcessAt
	}
	if len(info.Result) > 0 {
		var r Record
		if err := json.Unmarshal(info.Result, &r); err != nil {
			return nil, fmt.Errorf("run %s: its record is not JSON: %w", info.ID, err)
		}
		st.Record = &r
	}
	if st.State == Running {
		// The record names the worker as the run starts; asynq's list of
		// servers is refreshed every 5 s only.
		if st.Record != nil && st.Record.State == Running {
			st.Worker = st.Record.Worker
		} else {
			st.Worker = c.workerOf(info.ID)
		}
	}
	return st, nil
}

// workerOf names the live worker whose active runs include id.
func (c *Client) workerOf(id string) string {
	servers, err := c.insp.Servers()
	if err != nil {
		return ""
	}
	for _, s := range servers {
		for _, w := range s.ActiveWorkers {
			if w.TaskID == id {
				return fmt.Sprintf("%s:%d", s.Host, s.PID)
			}
		}
	}
	return ""
}

// Final reports whether the run ended: done, or archived.
func (s *Status) Final() bool { return s.State == Done || s.State == Archived }

// Wait polls the run's status every interval until it ended or ctx ends.
func (c *Client) Wait(ctx context.Context, runID string, interval time.Duration) (*Status, error) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		st, err := c.Status(ctx, runID)
		if err != nil || st.Final() {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-t.C:
		}
	}
}

// QueueSummary counts a queue's runs by state.
type QueueSummary struct {
	Queue     string `json:"queue"`
	Queued    int    `json:"queued"`
	Running   int    `json:"running"`
	Scheduled int    `json:"scheduled"`
	Retrying  int    `json:"retrying"`
	Archived  int    `json:"archived"`
	Done      int    `json:"done"`
	Paused    bool   `json:"paused,omitempty"`
}

// WorkerSummary is a live worker.
type WorkerSummary struct {
	Name        string    `json:"name"`
	Queues      []string  `json:"queues"`
	Concurrency int       `json:"concurrency"`
	Running     []string  `json:"running"`
	Started     time.Time `json:"started"`
	Status      string    `json:"status"`
}

// Overview counts every queue's runs and lists the live workers.
func (c *Client) Overview(ctx context.Context) ([]QueueSummary, []WorkerSummary, error) {
	qs, err := c.insp.Queues()
	if err != nil {
		return nil, nil, fmt.Errorf("list queues: %w", err)
	}
	var out []QueueSummary
	for _, q := range qs {
		info, err := c.insp.GetQueueInfo(q)
		if err != nil {
			return nil, nil, fmt.Errorf("queue %s: %w", q, err)
		}
		out = append(out, QueueSummary{Queue: q, Queued: info.Pending, Running: info.Active, Scheduled: info.Scheduled,
			Retrying: info.Retry, Archived: info.Archived, Done: info.Completed, Paused: info.Paused})
	}
	servers, err := c.insp.Servers()
	if err != nil {
		return nil, nil, fmt.Errorf("list workers: %w", err)
	}
	var ws []WorkerSummary
	for _, s := range servers {
		w := WorkerSummary{Name: fmt.Sprintf("%s:%d", s.Host, s.PID), Concurrency: s.Concurrency, Started: s.Started, Status: s.Status}
		for q := range s.Queues {
			w.Queues = append(w.Queues, q)
		}
		for _, a := range s.ActiveWorkers {
			w.Running = append(w.Running, a.TaskID)
		}
		ws = append(ws, w)
	}
	return out, ws, nil
}
