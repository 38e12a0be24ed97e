package queue_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/cogloop/cogloop/types/human"
)

const waitWF = `orchestrator: {id: reviewed, agents: [draft, ok, final]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "draft {{ input }}"}
  - {id: ok, type: human, kind: choice, options: [left, right], prompt: "Which way for {{ input }}?"}
  - {id: final, type: openai-answer, model: m, prompt: "final {{ input }} {{ previous_outputs.ok.choice }}"}
`

// Three workers of one slot each and 20 runs that each wait once: a
// waiting run releases its worker (else only three could ever wait), the
// answers come in random order, each answer puts its run back in the queue
// for any worker, and every run ends with its own answer, no model call
// made twice.
func TestWaitingRunsReleaseTheirWorkers(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	m := newModels()
	for range 3 {
		startWorker(t, srv.URL(), m, 1)
	}
	ctx := context.Background()
	wf := queue.Source("wait.yaml", []byte(waitWF))
	const n = 20
	for i := range n {
		_, err := queue.Enqueue(ctx, c, wf, fmt.Sprintf("run%d", i), queue.RunID(fmt.Sprintf("w%d", i)))
		require.NoError(t, err)
	}
	for i := range n {
		st := wait(t, c, fmt.Sprintf("w%d", i))
		require.Equal(t, queue.Waiting, st.Record.State, "run w%d: %+v", i, st.Record)
		doc := document(t, st)
		assert.Equal(t, "waiting", doc["status"])
		assert.Equal(t, fmt.Sprintf("Which way for run%d?", i), doc["waiting"].(map[string]any)["question"])
	}
	store, err := redis.New(ctx, srv.URL(), redis.Options{Options: memory.Options{}})
	require.NoError(t, err)
	defer func() { _ = store.Close() }() // the test's connection
	waiting, err := cogloop.ListWaiting(ctx, store)
	require.NoError(t, err)
	assert.Len(t, waiting, n)

	// continued without an answer, a run waits again
	require.NoError(t, queue.Continue(ctx, c, "w0"))
	require.Equal(t, queue.Waiting, wait(t, c, "w0").Record.State)
	err = queue.Continue(ctx, c, "nope")
	require.ErrorIs(t, err, queue.ErrNotFound)
	require.ErrorIs(t, cogloop.Answer(ctx, store, "w0", human.Answer{Kind: human.KindChoice, Choice: "up"}), human.ErrBadAnswer)

	choice := map[int]string{}
	for _, i := range rand.New(rand.NewSource(7)).Perm(n) {
		choice[i] = []string{"left", "right"}[i%2]
		id := fmt.Sprintf("w%d", i)
		require.NoError(t, cogloop.Answer(ctx, store, id, human.Answer{Kind: human.KindChoice, Choice: choice[i], By: "ann"}))
		require.NoError(t, queue.Continue(ctx, c, id))
	}
	require.ErrorIs(t, queue.Continue(ctx, c, "w1"), queue.ErrNotStopped, "a run back in its queue is not continued twice")
	for i := range n {
		st := wait(t, c, fmt.Sprintf("w%d", i))
		require.Equal(t, queue.Done, st.Record.State, "run w%d: %+v", i, st.Record)
		doc := document(t, st)
		assert.Equal(t, "ok", doc["status"])
		assert.Equal(t, "draft", doc["output"])
		assert.Equal(t, 1, m.count(fmt.Sprintf("draft run%d", i)), "run w%d's draft", i)
		assert.Equal(t, 1, m.count(fmt.Sprintf("final run%d %s", i, choice[i])), "run w%d's final", i)
	}
	waiting, err = cogloop.ListWaiting(ctx, store)
	require.NoError(t, err)
	assert.Empty(t, waiting)
}
