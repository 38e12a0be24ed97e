package queue

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"
)

// Runs lists, for every queue, up to limit runs in each state (running,
// queued, retrying, scheduled, archived, done, in that order), as [Status]
// does for one run.
func (c *Client) Runs(ctx context.Context, limit int) ([]Status, error) {
	qs, err := c.insp.Queues()
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	lists := []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){
		c.insp.ListActiveTasks, c.insp.ListPendingTasks, c.insp.ListRetryTasks,
		c.insp.ListScheduledTasks, c.insp.ListArchivedTasks, c.insp.ListCompletedTasks,
	}
	var out []Status
	for _, q := range qs {
		for _, list := range lists {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			infos, err := list(q, asynq.PageSize(limit))
			if err != nil {
				return nil, fmt.Errorf("list runs of queue %s: %w", q, err)
			}
			for _, info := range infos {
				st, err := c.status(info)
				if err != nil {
					return nil, err
				}
				out = append(out, *st)
			}
		}
	}
	return out, nil
}
