package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/internal/backoff"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
)

// Worker defaults.
const (
	DefaultConcurrency     = 10
	DefaultShutdownTimeout = 30 * time.Second
	defaultPoll            = time.Second
)

// Options configure a [Worker]. Only Redis is required.
type Options struct {
	// Redis is the URL of the Redis that holds the queues (and, by default,
	// the checkpoints).
	Redis string
	// Concurrency is how many runs the worker runs at once
	// ([DefaultConcurrency]).
	Concurrency int
	// Queues are the queues to take runs from with their priorities
	// (default: [DefaultQueue] only).
	Queues map[string]int
	// LoadOptions build each run's workflow: cogloop.WithRegistry for custom
	// agent types, presets.
	LoadOptions []cogloop.LoadOption
	// Workflows build the Go-built workflows this worker runs, by id (the id
	// given to cogloop.New): [EnqueueWorkflow] of such a workflow sends its
	// id and input, and the worker calls the builder once per delivery of
	// the run. A run of an id missing here fails, naming it.
	Workflows map[string]func() (*cogloop.Workflow, error)
	// Models answers every model call (a scripted model, a fake); nil uses
	// the providers the workflows configure.
	Models agents.ModelSource
	// OpenStore opens the store of a key namespace for checkpoints, loop
	// histories and memories; default: the Redis store of memory/redis on
	// Redis. The worker closes what it opened when Run returns.
	OpenStore func(ctx context.Context, namespace string) (memory.Store, error)
	// ShutdownTimeout bounds the drain ([DefaultShutdownTimeout]).
	ShutdownTimeout time.Duration
	// PollInterval is how often an idle worker looks for runs and moves
	// retries that are due back to their queue (default 1s).
	PollInterval time.Duration
	// Logger receives one line per run that ends and asynq's warnings;
	// default: discard.
	Logger *slog.Logger
}

// Worker runs the runs of its queues. Build it with [NewWorker].
type Worker struct {
	o        Options
	name     string
	srv      *asynq.Server
	insp     *asynq.Inspector
	draining atomic.Bool
	log      *slog.Logger

	mu      sync.Mutex
	stores  map[string]memory.Store
	running map[string]string // run id → its namespace, while it runs here
}

// NewWorker builds a worker; it connects when [Worker.Run] starts.
func NewWorker(o Options) (*Worker, error) {
	opt, err := redisOpt(o.Redis)
	if err != nil {
		return nil, err
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if len(o.Queues) == 0 {
		o.Queues = map[string]int{DefaultQueue: 1}
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPoll
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	w := &Worker{o: o, name: host + ":" + strconv.Itoa(os.Getpid()), insp: asynq.NewInspector(opt),
		log: o.Logger, stores: map[string]memory.Store{}, running: map[string]string{}}
	if w.o.OpenStore == nil {
		w.o.OpenStore = func(ctx context.Context, ns string) (memory.Store, error) {
			return redis.New(ctx, o.Redis, redis.Options{Options: memory.Options{Namespace: ns}})
		}
	}
	w.srv = asynq.NewServer(opt, asynq.Config{
		Concurrency:              o.Concurrency,
		Queues:                   o.Queues,
		ShutdownTimeout:          o.ShutdownTimeout,
		TaskCheckInterval:        o.PollInterval,
		DelayedTaskCheckInterval: o.PollInterval,
		RetryDelayFunc:           retryDelay,
		IsFailure:                func(err error) bool { return !errors.As(err, new(drainedError)) },
		Logger:                   slogAdapter{o.Logger},
		LogLevel:                 asynq.WarnLevel,
	})
	return w, nil
}

// Name is the worker's name in records and statuses: host:pid, as asynq
// names its servers.
func (w *Worker) Name() string { return w.name }

// Run processes runs until ctx ends, then drains (see the package doc) and
// returns. ready, when not nil, is called once the worker takes runs.
func (w *Worker) Run(ctx context.Context, ready func()) error {
	defer w.closeStores()
	defer func() { _ = w.insp.Close() }() // the inspector only reads; Close releases its connection
	// Connect first, so a wrong URL is an error here and not a log line.
	if _, err := w.store(ctx, ""); err != nil {
		return err
	}
	mux := asynq.NewServeMux()
	mux.Handle(taskType, asynq.HandlerFunc(w.process))
	if err := w.srv.Start(mux); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	w.draining.Store(true)
	w.srv.Stop()
	w.srv.Shutdown()
	return nil
}

// Draining reports whether the worker stopped taking runs.
func (w *Worker) Draining() bool { return w.draining.Load() }

// store returns the store of namespace ns, opening it once.
func (w *Worker) store(ctx context.Context, ns string) (memory.Store, error) {
	if ns == "" {
		ns = memory.DefaultNamespace
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.stores[ns]; ok {
		return s, nil
	}
	s, err := w.o.OpenStore(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("open store of namespace %q: %w", ns, err)
	}
	w.stores[ns] = s
	return s, nil
}

func (w *Worker) closeStores() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ns, s := range w.stores {
		_ = s.Close()
		delete(w.stores, ns)
	}
}

var errDrain = errors.New("worker draining")

// leaseMargin is waited beyond a held lease's expiry before taking it over.
const leaseMargin = 20 * time.Millisecond

// process is the asynq handler of one delivery of a run.
func (w *Worker) process(ctx context.Context, t *asynq.Task) error {
	var p payload
	dec := json.NewDecoder(bytes.NewReader(t.Payload()))
	if err := dec.Decode(&p); err != nil || (p.Version != payloadVersion && p.Version != goPayloadVersion) {
		//nolint:errorlint // err is nil when only the version differs
		return permanent(fmt.Errorf("task %s: not a cogloop run payload of version %d or %d (%v); submit it with cogloop submit", t.ResultWriter().TaskID(), payloadVersion, goPayloadVersion, err))
	}
	prev := w.previous(ctx, p.RunID)
	if prev.Final() {
		// It ended on a worker that died before asynq heard of it.
		w.log.Info("run already ended", "run", p.RunID, "state", prev.State)
		if prev.State == Done {
			return nil
		}
		return permanent(errors.New(prev.Error))
	}
	attempt := 1
	if prev != nil {
		attempt = prev.Attempt + 1
	}
	rec := newRecorder(t.ResultWriter(), prev, p.RunID, w.name, attempt)
	start := time.Now()
	state, err := w.run(ctx, p, rec)
	switch {
	case state == "":
		w.log.Warn("run handed back", "run", p.RunID, "attempt", attempt, "err", err)
	case err != nil:
		w.log.Warn("run "+state, "run", p.RunID, "attempt", attempt, "duration", time.Since(start).Round(time.Millisecond), "err", err)
	default:
		w.log.Info("run "+state, "run", p.RunID, "attempt", attempt, "duration", time.Since(start).Round(time.Millisecond))
	}
	return err
}

// previous reads the record an earlier delivery of the run wrote, if any.
func (w *Worker) previous(ctx context.Context, runID string) *Record {
	q, _ := asynq.GetQueueName(ctx)
	info, err := w.insp.GetTaskInfo(q, runID)
	if err != nil || len(info.Result) == 0 {
		return nil
	}
	var r Record
	if json.Unmarshal(info.Result, &r) != nil {
		return nil
	}
	return &r
}

// run runs one delivery; state is the record's end state ("" when the run
// goes back to the queue).
func (w *Worker) run(ctx context.Context, p payload, rec *recorder) (string, error) {
	fail := func(err error) (string, error) { return failed(rec, err) }
	wf, err := w.workflow(p)
	if err != nil {
		return fail(err)
	}
	var input any
	if len(p.Input) > 0 {
		dec := json.NewDecoder(bytes.NewReader(p.Input))
		dec.UseNumber()
		if err := dec.Decode(&input); err != nil {
			return fail(permanent(fmt.Errorf("run input: %w", err)))
		}
		input = agents.Plain(input)
	}
	store, err := w.store(ctx, p.Namespace)
	if err != nil {
		return fail(err)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	observe := func(e event.Event) {
		rec.observe(e)
		if e.Kind == event.LoopIteration && e.Data["completed"] == true && e.Data["stop"] != true && w.draining.Load() {
			cancel(errDrain) // after this pass's checkpoint, the loop stops
		}
	}
	w.started(p.RunID, p.Namespace)
	defer w.ended(p.RunID)
	var res *cogloop.Result
	for {
		_, resume, lerr := store.LoadCheckpoint(ctx, p.RunID)
		if lerr != nil {
			return fail(fmt.Errorf("load checkpoint: %w", lerr))
		}
		res, err = wf.Run(runCtx, input, w.runOptions(p, store, observe, resume)...)
		var held *memory.LeaseHeldError
		if res != nil || !errors.As(err, &held) {
			break
		}
		// A recovered run whose old process may still be alive (paused, cut
		// off): it is taken over only after its lease expired.
		w.log.Warn("run live in another process: waiting for its lease to expire", "run", p.RunID,
			"holder", held.Holder, "expires", held.Expires.UTC().Format(time.RFC3339Nano))
		t := time.NewTimer(time.Until(held.Expires) + leaseMargin)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("run %s stopped while waiting for its lease: %w", p.RunID, context.Cause(ctx))
		case <-t.C:
		}
	}
	return w.conclude(ctx, runCtx, p, rec, res, err)
}

// conclude records how a delivery of run p ended (res and err from its
// run in runCtx) and returns its end state ("" when the run goes back to
// the queue) and the error asynq sees.
func (w *Worker) conclude(ctx, runCtx context.Context, p payload, rec *recorder, res *cogloop.Result, err error) (string, error) {
	fail := func(err error) (string, error) { return failed(rec, err) }
	switch {
	case errors.Is(context.Cause(runCtx), errDrain):
		_ = rec.finish(Drained, "", nil)
		return "", drainedError{}
	case ctx.Err() != nil:
		// asynq took the run back (shutdown timeout, task timeout, lost lease).
		return "", fmt.Errorf("run %s stopped: %w", p.RunID, context.Cause(ctx))
	case res == nil && errors.Is(err, cogloop.ErrWorkflowChanged):
		return fail(permanent(err))
	case res == nil:
		return fail(err)
	case res.Status == cogloop.StatusWaiting || res.Status == cogloop.StatusPaused:
		// The run releases its worker; an answer (or cogloop answer, or
		// Continue) puts it back in its queue for any worker.
		if werr := rec.finish(res.Status, "", res); werr != nil {
			return "", fmt.Errorf("run %s is %s, but its record could not be written: %w", p.RunID, res.Status, werr)
		}
		return res.Status, nil
	case err != nil && storeFailed(res):
		return fail(fmt.Errorf("%w (the store failed: the run is retried and resumes from its checkpoint)", err))
	case err != nil:
		if werr := rec.finish(Failed, err.Error(), res); werr != nil {
			return "", fmt.Errorf("run %s failed, and its record could not be written: %w", p.RunID, werr)
		}
		return Failed, permanent(err)
	}
	if werr := rec.finish(Done, "", res); werr != nil {
		return "", fmt.Errorf("run %s ended, but its record could not be written: %w", p.RunID, werr)
	}
	return Done, nil
}

// runOptions are the options of one run of p: its store, observer, model
// source, checkpoints, and resume when resume is set.
func (w *Worker) runOptions(p payload, store memory.Store, observe func(event.Event), resume bool) []cogloop.RunOption {
	opts := []cogloop.RunOption{cogloop.WithMemory(store), cogloop.WithObserver(observe)}
	if p.CheckpointTTL > 0 {
		opts = append(opts, cogloop.WithCheckpointTTL(p.CheckpointTTL))
	}
	if w.o.Models != nil {
		opts = append(opts, cogloop.WithModels(w.o.Models))
	}
	if resume {
		return append(opts, cogloop.WithResume(p.RunID, false))
	}
	return append(opts, cogloop.WithRunID(p.RunID), cogloop.WithCheckpoints())
}

// failed records a permanent failure err of the run (a transient one goes
// back to the queue: state "").
func failed(rec *recorder, err error) (string, error) {
	var pe *permanentError
	if errors.As(err, &pe) {
		if werr := rec.finish(Failed, err.Error(), nil); werr != nil {
			return "", fmt.Errorf("%w; write its record: %w", err, werr)
		}
		return Failed, err
	}
	return "", err
}

// workflow builds the run's workflow: loads its YAML, or calls the builder of
// a Go-built one.
func (w *Worker) workflow(p payload) (*cogloop.Workflow, error) {
	if p.Go != "" {
		build := w.o.Workflows[p.Go]
		if build == nil {
			return nil, permanent(fmt.Errorf("workflow %q is built in Go and this worker has no builder for it: add it to the worker's Options.Workflows (known: %s)", p.Go, knownIDs(w.o.Workflows)))
		}
		wf, err := build()
		switch {
		case err != nil:
			return nil, permanent(fmt.Errorf("build workflow %q: %w", p.Go, err))
		case wf == nil || wf.ID() != p.Go:
			return nil, permanent(fmt.Errorf("the worker's Options.Workflows[%q] built a workflow with another id; a builder must build the workflow of its id", p.Go))
		}
		return wf, nil
	}
	src, err := p.Workflow.source()
	if err != nil {
		return nil, err
	}
	loadOpts := w.o.LoadOptions
	if p.Strict {
		loadOpts = append(loadOpts[:len(loadOpts):len(loadOpts)], cogloop.WithStrict())
	}
	wf, err := cogloop.Parse(src, p.Workflow.Name, loadOpts...)
	if err != nil {
		return nil, permanent(fmt.Errorf("invalid workflow (fix it and submit again): %w", err))
	}
	return wf, nil
}

func knownIDs(m map[string]func() (*cogloop.Workflow, error)) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// storeFailed reports a run that failed because its store did not answer:
// a retry can succeed.
func storeFailed(res *cogloop.Result) bool {
	for _, e := range res.Errors {
		if strings.Contains(e.Message, memory.ErrUnavailable.Error()) {
			return true
		}
	}
	return false
}

// runRetries is the wait between asynq's retries of a run: exponential from
// 1 s to 5 min with ±20 % jitter, on the project's one retry schedule
// (internal/backoff, which agent retries and the Redis store use too).
var runRetries = backoff.Policy{Exponential: true, Interval: time.Second, MaxInterval: 5 * time.Minute,
	Jitter: backoff.JitterFraction, Fraction: 0.2}

// retryDelay is 0 for a run handed back (drained, or its worker died) and
// otherwise runRetries' wait before retry n+1 (asynq's n counts the retries
// so far).
func retryDelay(n int, err error, _ *asynq.Task) time.Duration {
	if errors.As(err, new(drainedError)) || errors.Is(err, asynq.ErrLeaseExpired) {
		return 0
	}
	return runRetries.Wait(n+1, nil)
}

// slogAdapter routes asynq's log lines to a slog.Logger.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a slogAdapter) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a slogAdapter) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a slogAdapter) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a slogAdapter) Fatal(args ...any) {
	a.l.Error(fmt.Sprint(args...))
	os.Exit(1)
}
