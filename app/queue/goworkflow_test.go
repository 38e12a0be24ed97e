package queue_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// workerEnv makes the test binary a worker process (TestMain) on the Redis
// at its value, serving the Go-built workflow "tagline".
const workerEnv = "COGLOOP_QUEUE_TEST_WORKER"

func TestMain(m *testing.M) {
	if url := os.Getenv(workerEnv); url != "" {
		os.Exit(workerProcess(url))
	}
	os.Exit(m.Run())
}

// workerProcess runs a worker until its stdin closes; it prints "ready"
// once it takes runs.
func workerProcess(url string) int {
	w, err := queue.NewWorker(queue.Options{Redis: url, PollInterval: 50 * time.Millisecond,
		Workflows: map[string]func() (*cogloop.Workflow, error){"tagline": taglineWorkflow}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := w.Run(ctx, func() { fmt.Println("ready") }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startWorkerProcess starts a worker process on url and waits until it
// takes runs; it stops when the test ends.
func startWorkerProcess(t *testing.T, url string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"="+url)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		assert.NoError(t, cmd.Wait(), "the worker process ends cleanly when its stdin closes: %s", stderr.String())
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "worker process: %s", stderr.String())
	require.Equal(t, "ready\n", line)
}

// taglineWorkflow is a loop built in Go: a writer applies the loop's
// improvements, a critic scores (0.4, 0.7, then 0.92).
func taglineWorkflow() (*cogloop.Workflow, error) {
	writer := func(_ context.Context, in agents.Input) (agents.Output, error) {
		draft := fmt.Sprint(in.Loop.Task)
		for _, p := range in.Loop.Past() {
			if p.Improvements != "" {
				draft += ", " + p.Improvements
			}
		}
		return agents.Output{Response: draft}, nil
	}
	critic := func(_ context.Context, in agents.Input) (agents.Output, error) {
		switch len(in.Loop.Past()) {
		case 0:
			return agents.Output{Response: "IMPROVE: baked at dawn\nSCORE: 0.40"}, nil
		case 1:
			return agents.Output{Response: "IMPROVE: on Mill Street\nSCORE: 0.70"}, nil
		}
		return agents.Output{Response: "INSIGHT: concrete details sell\nSCORE: 0.92"}, nil
	}
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID: "tagline",
		Body: agents.Sequence{Steps: []agents.Step{
			agents.NewStep("writer", "go", agents.Func(writer)),
			agents.NewStep("critic", "go", agents.Func(critic)),
		}},
		MaxLoops: 5, Threshold: 0.9, OutputAgent: "writer",
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, From: []string{"critic"}},
		Lessons: cognition.ExtractConfig{Patterns: cognition.ExtractPatterns{
			Insights:     []string{`INSIGHT:\s*([^\n]+)`},
			Improvements: []string{`IMPROVE:\s*([^\n]+)`},
		}},
	})
	if err != nil {
		return nil, err
	}
	return cogloop.New("tagline", loop)
}

// A workflow built in Go is queued by its id and input; a worker process
// that registered its builder runs it, and the result comes back with the
// loop's typed results.
func TestEnqueueGoWorkflowToWorkerProcess(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	startWorkerProcess(t, srv.URL())
	wf, err := taglineWorkflow()
	require.NoError(t, err)
	_, _, fromYAML := wf.Source()
	require.False(t, fromYAML, "the workflow is built in Go")

	id, err := queue.EnqueueWorkflow(context.Background(), c, wf, "fresh bread", queue.RunID("go-1"))
	require.NoError(t, err)
	require.Equal(t, queue.Done, wait(t, c, id).State)
	res, err := c.Result(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, cogloop.StatusOK, res.Status)
	want := "fresh bread, baked at dawn, on Mill Street"
	assert.Equal(t, want, res.Text())

	loops := res.Loops()
	require.Len(t, loops, 1, "the loop's typed result comes back from the record")
	l := loops[0]
	assert.Equal(t, "tagline", l.ID)
	assert.Equal(t, loopnode.StopReason(loopnode.StopThreshold), l.StopReason)
	assert.Equal(t, 3, l.LoopsCompleted)
	assert.Equal(t, 3, l.BestIteration)
	assert.Equal(t, want, l.BestAnswer)
	require.Len(t, l.PastLoops, 3)
	assert.Equal(t, "baked at dawn", l.PastLoops[0].Improvements)
	assert.Equal(t, "concrete details sell", l.PastLoops[2].Insights)
	assert.InDelta(t, 0.7, l.PastLoops[1].Score, 1e-9)
	require.Len(t, l.Iterations, 3)
	assert.Equal(t, "fresh bread, baked at dawn", l.Iterations[1].Answer)
}

// A Go-built workflow whose id the worker has no builder for fails, and the
// error names it and the builders the worker has.
func TestEnqueueGoWorkflowUnknownToWorker(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	startWorkerProcess(t, srv.URL())
	other, err := cogloop.New("other", agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
		return agents.Output{Response: "x"}, nil
	}))
	require.NoError(t, err)
	id, err := queue.EnqueueWorkflow(context.Background(), c, other, "x", queue.RunID("go-2"))
	require.NoError(t, err)
	st := wait(t, c, id)
	assert.Equal(t, queue.Archived, st.State, "failed for good: a retry cannot find the builder either")
	assert.Equal(t, 0, st.Retried)
	require.NotNil(t, st.Record)
	assert.Equal(t, queue.Failed, st.Record.State)
	assert.Contains(t, st.Record.Error, `workflow "other" is built in Go and this worker has no builder for it`)
	assert.Contains(t, st.Record.Error, "known: tagline")
}
