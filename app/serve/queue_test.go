package serve_test

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/app/serve"
	"github.com/cogloop/cogloop/internal/htmlnode"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// The queue page and GET /api/queue show asynq's queues and runs (a real
// redis-server on loopback), each run linking to its page.
func TestQueueShowsQueuedRuns(t *testing.T) {
	rs := redistest.Start(t)
	c, err := queue.NewClient(rs.URL())
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	data, err := os.ReadFile("testdata/workflows/quality.yaml")
	require.NoError(t, err)
	id, err := queue.Enqueue(context.Background(), c, queue.Source("quality.yaml", data), "x", queue.RunID("queued-1"))
	require.NoError(t, err)

	_, ts := newServer(t, serve.Config{Queue: c})
	got := decode[struct {
		Queues []queue.QueueSummary
		Runs   []queue.Status
	}](t, get(t, ts, "/api/queue"))
	require.Len(t, got.Queues, 1)
	assert.Equal(t, 1, got.Queues[0].Queued)
	require.Len(t, got.Runs, 1)
	assert.Equal(t, id, got.Runs[0].RunID)
	assert.Equal(t, queue.Queued, got.Runs[0].State)

	doc, _ := page(t, get(t, ts, "/queue"))
	links := htmlnode.All(doc, func(n *html.Node) bool { return n.Data == "a" && htmlnode.Attr(n, "href") == "/runs/"+id })
	assert.Len(t, links, 1)

	rs.Stop()
	res := get(t, ts, "/api/queue")
	assert.Equal(t, http.StatusBadGateway, res.StatusCode, "a Redis that is gone is an error, not an empty queue")
}
