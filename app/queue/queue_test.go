package queue_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// loopWF is testdata/refine.yaml with a custom "shout" agent (registered by
// the test, as a Go program embedding a worker would) as the final agent.
var loopWF = func() string {
	data, err := os.ReadFile("testdata/refine.yaml")
	if err != nil {
		panic(err)
	}
	return strings.Replace(string(data), `{id: final, type: openai-answer, model: gpt-test, prompt: "final {{ input }}"}`, `{id: final, type: shout}`, 1)
}()

func registry() *agents.Registry {
	reg := cogloop.NewRegistry()
	reg.MustRegister("shout", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		return agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
			return agents.Output{Response: "DONE"}, nil
		}), nil
	})
	return reg
}

// models answers every call and counts calls by prompt; a prompt that
// contains hold blocks until release is closed (after signalling held).
type models struct {
	mu      sync.Mutex
	calls   map[string]int
	hold    string
	held    chan string
	release chan struct{}
}

func newModels() *models { return &models{calls: map[string]int{}} }

func (m *models) ModelFor(agent string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		m.mu.Lock()
		m.calls[req.Prompt]++
		hold := m.hold != "" && strings.Contains(req.Prompt, m.hold)
		m.mu.Unlock()
		if hold {
			m.held <- req.Prompt
			<-m.release
		}
		if agent == "scorer" {
			return agents.Reply{Text: "SCORE: 0.5"}, nil
		}
		return agents.Reply{Text: "draft"}, nil
	}), nil
}

func (m *models) count(prompt string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[prompt]
}

// startWorker runs a worker until the test ends (or stop is called); done
// is closed when Run returned.
func startWorker(t *testing.T, url string, m agents.ModelSource, conc int) (stop func(), done chan struct{}) {
	t.Helper()
	w, err := queue.NewWorker(queue.Options{Redis: url, Concurrency: conc, Models: m, PollInterval: 100 * time.Millisecond,
		ShutdownTimeout: 10 * time.Second, LoadOptions: []cogloop.LoadOption{cogloop.WithRegistry(registry())}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done = make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, w.Run(ctx, func() { close(ready) }))
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-done:
		t.Fatal("worker stopped before it was ready")
	}
	// stop returns once the worker is draining, so what the test does next
	// (releasing a held pass) happens after the drain began, however the
	// scheduler orders the worker's goroutine.
	stop = func() {
		cancel()
		require.Eventually(t, w.Draining, 10*time.Second, time.Millisecond, "the worker drains once its context ends")
	}
	return stop, done
}

func client(t *testing.T, url string) *queue.Client {
	c, err := queue.NewClient(url)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

func wait(t *testing.T, c *queue.Client, id string) *queue.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := c.Wait(ctx, id, 50*time.Millisecond)
	require.NoError(t, err)
	return st
}

// document decodes the run's JSON document from its record.
func document(t *testing.T, st *queue.Status) map[string]any {
	t.Helper()
	require.NotNil(t, st.Record)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(st.Record.Result, &doc))
	return doc
}

func passes(doc map[string]any) []any {
	loop := doc["outputs"].(map[string]any)["improve"].(map[string]any)
	var out []any
	for _, p := range loop["past_loops"].([]any) {
		out = append(out, p.(map[string]any)["loop_number"])
	}
	return out
}

func TestEnqueueRunsOnAWorkerWithACustomRegistry(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	m := newModels()
	startWorker(t, srv.URL(), m, 2)
	wf := queue.Source("refine.yaml", []byte(loopWF))
	opts := []queue.Option{queue.RunID("r1"), queue.LoadOptions(cogloop.WithRegistry(registry()))}
	id, err := queue.Enqueue(context.Background(), c, wf, "essay", opts...)
	require.NoError(t, err)
	assert.Equal(t, "r1", id)

	st := wait(t, c, "r1")
	assert.Equal(t, queue.Done, st.State)
	assert.Equal(t, queue.Done, st.Record.State)
	doc := document(t, st)
	assert.Equal(t, "ok", doc["status"])
	assert.Equal(t, "DONE", doc["output"])
	assert.Equal(t, []any{1.0, 2.0, 3.0}, passes(doc))
	for pass := 1; pass <= 3; pass++ {
		assert.Equal(t, 1, m.count(fmt.Sprintf("improve essay pass %d", pass)))
	}
	require.Len(t, st.Record.Loops, 1)
	assert.Equal(t, queue.LoopProgress{Path: "improve", Pass: 3, Max: 3, Score: 0.5, Done: true}, st.Record.Loops[0])
	assert.NotEmpty(t, st.Record.Events)

	// The same run id again, in the same queue or another: refused.
	_, err = queue.Enqueue(context.Background(), c, wf, "essay", opts...)
	assert.ErrorIs(t, err, queue.ErrDuplicate)
	assert.ErrorContains(t, err, "run r1: run id already submitted (it is done in queue cogloop)")
	_, err = queue.Enqueue(context.Background(), c, wf, "essay", append(opts, queue.Queue("other"))...)
	assert.ErrorIs(t, err, queue.ErrDuplicate)

	_, err = c.Status(context.Background(), "nope")
	assert.ErrorIs(t, err, queue.ErrNotFound)
}

func TestSubmitRefusesBadWorkflowsAndPlainKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	_, err := queue.Enqueue(context.Background(), c, queue.Source("bad.yaml", []byte("orchestrator: {id: x, agents: [a]}\nagents:\n  - {id: a, type: nosuch}\n")), "x")
	var le *load.Error
	require.ErrorAs(t, err, &le)
	assert.ErrorContains(t, err, "bad.yaml:3:")

	keyed := "orchestrator: {id: x, agents: [a]}\nagents:\n  - {id: a, type: openai-answer, model: m, api_key: sk-secret-1234, prompt: hi}\n"
	_, err = queue.Enqueue(context.Background(), c, queue.Source("keyed.yaml", []byte(keyed)), "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "keyed.yaml:3:")
	assert.Contains(t, err.Error(), "API key written in it")
	assert.NotContains(t, err.Error(), "sk-secret-1234")
	qs, _, err := c.Overview(context.Background())
	require.NoError(t, err)
	assert.Empty(t, qs, "nothing was submitted")
}

// A fatal error (an exhausted script) fails the run for good: it is archived
// with its error and its failed document, and never retried.
func TestPermanentFailureIsArchived(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	script, err := scripted.Parse([]byte("writer: [draft]\nscorer: {cycle: [\"SCORE: 0.5\"]}\n"), "replies.yaml")
	require.NoError(t, err)
	startWorker(t, srv.URL(), script, 1)
	_, err = queue.Enqueue(context.Background(), c, queue.Source("refine.yaml", []byte(loopWF)), "essay",
		queue.RunID("f1"), queue.LoadOptions(cogloop.WithRegistry(registry())))
	require.NoError(t, err)
	st := wait(t, c, "f1")
	assert.Equal(t, queue.Archived, st.State)
	assert.Equal(t, 0, st.Retried)
	assert.Equal(t, queue.Failed, st.Record.State)
	assert.Contains(t, st.Record.Error, "writer")
	assert.Contains(t, st.LastError, "run failed")
	assert.Equal(t, "failed", document(t, st)["status"])
	assert.Len(t, st.Record.Attempts, 1)
}

// A shared workflow file missing on the worker is a transient failure: the
// run is retried and succeeds once the file is there.
func TestTransientFailureIsRetried(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	path := filepath.Join(t.TempDir(), "refine.yaml")
	require.NoError(t, os.WriteFile(path, []byte(loopWF), 0o644))
	wf, err := queue.SharedFile(path)
	require.NoError(t, err)
	_, err = queue.Enqueue(context.Background(), c, wf, "essay", queue.RunID("t1"), queue.LoadOptions(cogloop.WithRegistry(registry())))
	require.NoError(t, err)
	require.NoError(t, os.Rename(path, path+".away"))
	startWorker(t, srv.URL(), newModels(), 1)

	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := c.Status(context.Background(), "t1")
		require.NoError(t, err)
		if st.State == queue.Retrying {
			assert.Contains(t, st.LastError, path)
			assert.Equal(t, 1, st.Retried)
			break
		}
		require.True(t, time.Now().Before(deadline), "never retrying: %+v", st)
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	require.NoError(t, os.Rename(path+".away", path))
	st := wait(t, c, "t1")
	assert.Equal(t, queue.Done, st.State)
	assert.Equal(t, "ok", document(t, st)["status"])
}

// A draining worker lets the pass in flight finish, hands the run back
// without counting a failure, and another worker resumes it from the next
// pass: no model call is repeated.
func TestDrainHandsBackAtAPassBoundary(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv.URL())
	m := newModels()
	m.hold, m.held, m.release = "improve essay pass 2", make(chan string, 1), make(chan struct{})
	stop, done := startWorker(t, srv.URL(), m, 1)
	_, err := queue.Enqueue(context.Background(), c, queue.Source("refine.yaml", []byte(loopWF)), "essay",
		queue.RunID("d1"), queue.LoadOptions(cogloop.WithRegistry(registry())))
	require.NoError(t, err)
	<-m.held // pass 2 is in flight
	stop()
	close(m.release)
	<-done

	st, err := c.Status(context.Background(), "d1")
	require.NoError(t, err)
	assert.Contains(t, []string{queue.Retrying, queue.Queued}, st.State)
	assert.Equal(t, 0, st.Retried, "a drain is not a failure")
	assert.Equal(t, queue.Drained, st.Record.State)
	assert.Equal(t, 2, st.Record.Loops[0].Pass)
	assert.Equal(t, 0, m.count("improve essay pass 3"))

	m2 := newModels()
	startWorker(t, srv.URL(), m2, 1)
	st = wait(t, c, "d1")
	assert.Equal(t, queue.Done, st.State)
	assert.Equal(t, []any{1.0, 2.0, 3.0}, passes(document(t, st)))
	assert.Equal(t, 0, m2.count("improve essay pass 1")+m2.count("improve essay pass 2"), "passes 1-2 come from the checkpoint")
	assert.Equal(t, 1, m2.count("improve essay pass 3"))
	require.Len(t, st.Record.Attempts, 2)
	assert.Equal(t, map[string]int{"improve": 2}, st.Record.Attempts[1].ResumedAfter)
	assert.Equal(t, queue.Drained, st.Record.Attempts[0].End)
}

func TestWorkerNeedsRedis(t *testing.T) {
	_, err := queue.NewWorker(queue.Options{})
	assert.ErrorContains(t, err, "no Redis URL")
	w, err := queue.NewWorker(queue.Options{Redis: "redis://127.0.0.1:1/0"})
	require.NoError(t, err)
	err = w.Run(context.Background(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "127.0.0.1:1", "the error names the server")
}

// A run whose lease another process holds (a worker paused past asynq's
// lease, still alive) is taken over only after that lease expired: the
// worker waits, and no model call of the run happens while the other
// holder's lease is live.
func TestRecoveryWaitsForTheLease(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	store, err := redis.New(ctx, srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	defer func() { _ = store.Close() }()
	require.NoError(t, store.TakeLease(ctx, "held", "other-host/1/x", "", 1500*time.Millisecond))

	var mu sync.Mutex
	var holders []string
	m := probing{inner: newModels(), probe: func() {
		var held *memory.LeaseHeldError
		if errors.As(store.TakeLease(ctx, "held", "probe", "", time.Minute), &held) {
			mu.Lock()
			holders = append(holders, held.Holder)
			mu.Unlock()
		}
	}}
	c := client(t, srv.URL())
	startWorker(t, srv.URL(), m, 1)
	wf := queue.Source("refine.yaml", []byte(loopWF))
	_, err = queue.Enqueue(ctx, c, wf, "essay", queue.RunID("held"), queue.LoadOptions(cogloop.WithRegistry(registry())))
	require.NoError(t, err)

	st := wait(t, c, "held")
	assert.Equal(t, queue.Done, st.State)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, holders)
	for _, h := range holders {
		assert.NotEqual(t, "other-host/1/x", h, "a model call while the other process's lease was live")
	}
}

// probing calls probe before every model call of inner.
type probing struct {
	inner *models
	probe func()
}

func (p probing) ModelFor(agent string) (agents.Model, error) {
	m, err := p.inner.ModelFor(agent)
	if err != nil {
		return nil, err
	}
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		p.probe()
		return m.Generate(ctx, req)
	}), nil
}
