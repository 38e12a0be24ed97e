package queue_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// A loaded *cogloop.Workflow is queued as it is, and the run's result comes
// back as a *cogloop.Result.
func TestEnqueueWorkflowAndFetchResult(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	wf, err := cogloop.Parse([]byte(loopWF), "refine.yaml", cogloop.WithRegistry(registry()))
	require.NoError(t, err)

	// Not run yet (a queue no worker serves): no result, and it says why.
	id, err := queue.EnqueueWorkflow(context.Background(), c, wf, "essay", queue.RunID("idle-1"), queue.Queue("idle"))
	require.NoError(t, err)
	_, err = c.Result(context.Background(), id)
	require.ErrorIs(t, err, queue.ErrNoResult)
	assert.ErrorContains(t, err, "state queued")

	startWorker(t, srv.URL(), newModels(), 1)
	id, err = queue.EnqueueWorkflow(context.Background(), c, wf, "essay", queue.RunID("wf-1"))
	require.NoError(t, err)
	assert.Equal(t, queue.Done, wait(t, c, id).State)
	res, err := c.Result(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "wf-1", res.RunID)
	assert.Equal(t, cogloop.StatusOK, res.Status)
	assert.Equal(t, "DONE", res.Text())
	assert.ElementsMatch(t, []string{"improve", "final"}, res.Outputs.IDs())
	loop, ok := res.Outputs.Get("improve")
	require.True(t, ok)
	assert.Len(t, loop.Fields["past_loops"], 3)
	assert.Equal(t, 3.0, loop.Fields["loops_completed"])
	loops := res.Loops()
	require.Len(t, loops, 1, "the loop's typed result comes back too")
	assert.Equal(t, loopnode.StopReason(loopnode.StopMaxLoops), loops[0].StopReason)
	assert.Equal(t, 3, loops[0].LoopsCompleted)
	require.Len(t, loops[0].PastLoops, 3)
	assert.Equal(t, 2, loops[0].PastLoops[1].Number)
	require.Len(t, loops[0].Iterations, 3)
	assert.Equal(t, "draft", loops[0].Iterations[2].Answer)
	assert.Equal(t, "draft", loops[0].BestAnswer)

	_, err = c.Result(context.Background(), "nope")
	assert.ErrorIs(t, err, queue.ErrNotFound)
}
