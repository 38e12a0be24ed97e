package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/types/llm"
)

// redisFlag is --redis, else $REDIS_URL.
func redisFlag(v string) string {
	if v != "" {
		return v
	}
	return os.Getenv("REDIS_URL")
}

func cmdWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("worker", stderr)
	redisURL := fs.String("redis", "", "")
	conc := fs.Int("concurrency", queue.DefaultConcurrency, "")
	queues := fs.String("queues", queue.DefaultQueue, "")
	script := fs.String("script", "", "")
	presets := fs.String("presets", "", "")
	shutdown := fs.Duration("shutdown-timeout", queue.DefaultShutdownTimeout, "")
	poll := fs.Duration("poll-interval", time.Second, "")
	quiet := fs.Bool("q", false, "")
	strict := fs.Bool("strict", false, "")
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return usageError(stderr, "worker", err)
	case *poll <= 0:
		return usageError(stderr, "worker", fmt.Errorf("--poll-interval must be positive, got %s", *poll))
	case len(pos) > 0:
		return usageError(stderr, "worker", fmt.Errorf("worker takes no arguments, got %q", pos[0]))
	case *conc <= 0:
		return usageError(stderr, "worker", fmt.Errorf("--concurrency must be positive, got %d", *conc))
	case *shutdown <= 0:
		return usageError(stderr, "worker", fmt.Errorf("--shutdown-timeout must be positive, got %s", *shutdown))
	}
	qs, err := parseQueues(*queues)
	if err != nil {
		return usageError(stderr, "worker", err)
	}
	llm.SizePool(*conc) // every run's calls draw on one pool, as many idle connections as runs at once
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelWarn
	}
	o := queue.Options{Redis: redisFlag(*redisURL), Concurrency: *conc, Queues: qs, ShutdownTimeout: *shutdown,
		PollInterval: *poll, LoadOptions: loadOptions(*presets, false),
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))}
	if *script != "" {
		data, err := readFileCapped(*script, "--script", maxScriptBytes, "split the replies or shorten them")
		if err != nil {
			return usageError(stderr, "worker", err)
		}
		s, err := scripted.Parse(data, *script)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop worker: %v\n", err)
			return exitUsage
		}
		o.Models = s
	}
	w, err := queue.NewWorker(o)
	if err != nil {
		return usageError(stderr, "worker", err)
	}
	if err := checkDurable(ctx, o.Redis, "worker", *strict, stderr); err != nil {
		fmt.Fprintf(stderr, "cogloop worker: %v\n", err)
		return exitFailure
	}
	ready := func() {
		fmt.Fprintf(stderr, "cogloop worker: ready %s queues=%s concurrency=%d\n", w.Name(), *queues, *conc)
	}
	defer pauseWorkerOnSignal(ctx, w, stderr)()
	if err := w.Run(ctx, ready); err != nil {
		fmt.Fprintf(stderr, "cogloop worker: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "cogloop worker: %s drained\n", w.Name())
	return exitCode(ctx, exitOK)
}

// parseQueues reads q1,q2:3 into queue priorities (default 1).
func parseQueues(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		name, prio, found := strings.Cut(strings.TrimSpace(part), ":")
		n := 1
		if found {
			var err error
			if n, err = strconv.Atoi(prio); err != nil || n <= 0 {
				return nil, fmt.Errorf("--queues: priority of %q must be a positive integer, got %q", name, prio)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("--queues: empty queue name in %q", s)
		}
		out[name] = n
	}
	return out, nil
}

type submitFlags struct {
	redis, queue, runID, dataset, namespace string
	jsonInput, shared, strict, wait         bool
	maxRetry                                int
	retention, timeout, cpTTL               time.Duration
}

// define defines submit's flags on fs.
func (f *submitFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.redis, "redis", "", "")
	fs.StringVar(&f.queue, "queue", queue.DefaultQueue, "")
	fs.StringVar(&f.runID, "run-id", "", "")
	fs.StringVar(&f.dataset, "dataset", "", "")
	fs.StringVar(&f.namespace, "namespace", "", "")
	fs.BoolVar(&f.jsonInput, "json-input", false, "")
	fs.BoolVar(&f.shared, "shared", false, "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.BoolVar(&f.wait, "wait", false, "")
	fs.IntVar(&f.maxRetry, "max-retry", queue.DefaultMaxRetry, "")
	fs.DurationVar(&f.retention, "retention", queue.DefaultRetention, "")
	fs.DurationVar(&f.timeout, "timeout", queue.DefaultTimeout, "")
	fs.DurationVar(&f.cpTTL, "checkpoint-ttl", 0, "")
}

func cmdSubmit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f submitFlags
	fs := newFlagSet("submit", stderr)
	f.define(fs)
	usageErr := func(err error) int { return usageError(stderr, "submit", err) }
	pos, err := parseWorkflowInput(fs, args)
	if err == nil {
		err = f.check(pos)
	}
	if err != nil {
		return usageErr(err)
	}
	wf, err := f.workflow(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	jobs, err := f.jobs(pos)
	if err != nil {
		return usageErr(err)
	}
	c, err := queue.NewClient(redisFlag(f.redis))
	if err != nil {
		return usageErr(err)
	}
	if err := checkDurable(ctx, redisFlag(f.redis), "submit", f.strict, stderr); err != nil {
		_ = c.Close()
		fmt.Fprintf(stderr, "cogloop submit: %v\n", err)
		return exitFailure
	}
	defer func() { _ = c.Close() }() // enqueueing is synchronous; Close only releases the connection
	ids, code := enqueueJobs(ctx, c, wf, jobs, f.options(), stdout, stderr)
	if code == exitUsage {
		return code
	}
	appendLedger(redisFlag(f.redis), ids, f.retention, stderr)
	switch {
	case !f.wait:
		return code
	case len(ids) == 1 && f.dataset == "":
		return printResult(ctx, c, ids[0], true, stdout, stderr)
	}
	if waited := waitJobs(ctx, c, ids, stderr); waited != exitOK {
		return waited
	}
	return code
}

// check refuses submit's flags when they contradict the arguments pos or
// are out of range.
func (f submitFlags) check(pos []string) error {
	switch {
	case f.dataset != "" && len(pos) == 2:
		return errors.New("give the input as an argument or with --dataset, not both")
	case f.maxRetry < 0 || f.retention <= 0 || f.timeout <= 0 || f.cpTTL < 0:
		return errors.New("--max-retry must not be negative; --retention and --timeout must be positive")
	}
	return nil
}

// workflow reads the workflow file at path to send (--shared: by its path,
// for workers that share the file).
func (f submitFlags) workflow(path string) (queue.Workflow, error) {
	if f.shared {
		return queue.SharedFile(path)
	}
	return queue.File(path)
}

// options are the queue options the flags ask for.
func (f submitFlags) options() []queue.Option {
	opts := []queue.Option{queue.Queue(f.queue), queue.Namespace(f.namespace), queue.MaxRetry(f.maxRetry),
		queue.Retention(f.retention), queue.Timeout(f.timeout), queue.CheckpointTTL(f.cpTTL)}
	if f.strict {
		opts = append(opts, queue.Strict())
	}
	return opts
}

// submitJob is one run to enqueue: its id ("": the queue picks one) and input.
type submitJob struct {
	id    string
	input any
}

// jobs are the runs to submit: one per --dataset line (their ids the
// --run-id prefix and the line number), or the one run of the input in pos.
func (f submitFlags) jobs(pos []string) ([]submitJob, error) {
	if f.dataset == "" {
		in, err := readInput(pos[1:], runFlags{jsonInput: f.jsonInput})
		if err != nil {
			return nil, err
		}
		return []submitJob{{f.runID, in}}, nil
	}
	prefix := f.runID
	if prefix == "" {
		prefix = cogloop.NewRunID()
	}
	inputs, lines, err := readDataset(f.dataset)
	if err != nil {
		return nil, err
	}
	jobs := make([]submitJob, 0, len(inputs))
	for i, in := range inputs {
		jobs = append(jobs, submitJob{fmt.Sprintf("%s-%d", prefix, lines[i]), in})
	}
	return jobs, nil
}

// enqueueJobs enqueues the jobs, printing each run id on stdout; ids are
// the runs enqueued. The code is exitUsage for a workflow the queue
// refuses (nothing more is enqueued), exitFailure when a job could not be
// enqueued (the others are), else exitOK.
func enqueueJobs(ctx context.Context, c *queue.Client, wf queue.Workflow, jobs []submitJob, opts []queue.Option, stdout, stderr io.Writer) (ids []string, code int) {
	code = exitOK
	for _, j := range jobs {
		o := opts
		if j.id != "" {
			o = append(o[:len(o):len(o)], queue.RunID(j.id))
		}
		id, err := queue.Enqueue(ctx, c, wf, j.input, o...)
		var le *load.Error
		switch {
		case errors.As(err, &le):
			fmt.Fprintln(stderr, err)
			return ids, exitUsage
		case err != nil:
			fmt.Fprintf(stderr, "cogloop submit: %v\n", err)
			code = exitFailure
			continue
		}
		fmt.Fprintln(stdout, id)
		ids = append(ids, id)
	}
	return ids, code
}

// waitJobs waits for the runs ids to end and says how many failed: exitOK
// when none did.
func waitJobs(ctx context.Context, c *queue.Client, ids []string, stderr io.Writer) int {
	failed := 0
	for _, id := range ids {
		st, err := c.Wait(ctx, id, 200*time.Millisecond)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop submit: %v\n", err)
			return exitCode(ctx, exitFailure)
		}
		if !runOK(st) {
			failed++
		}
	}
	fmt.Fprintf(stderr, "cogloop submit: %d runs ended: %d ok, %d failed\n", len(ids), len(ids)-failed, failed)
	if failed > 0 {
		return exitFailure
	}
	return exitOK
}

// readDataset reads one JSON input per non-empty line, with the line numbers.
func readDataset(path string) ([]any, []int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--dataset: %w", err)
	}
	defer func() { _ = fh.Close() }() // read-only
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), maxInputBytes+1)
	var inputs []any
	var lines []int
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		v, err := decodeInput(line)
		if err != nil {
			return nil, nil, fmt.Errorf("--dataset %s:%d: the line is not a JSON value (each line is one run's input, e.g. \"text\" or {\"k\": 1}): %w", path, n, err)
		}
		inputs = append(inputs, v)
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("--dataset %s: %w (a line may be at most 1 MiB)", path, err)
	}
	if len(inputs) == 0 {
		return nil, nil, fmt.Errorf("--dataset %s has no runs (no non-empty line)", path)
	}
	return inputs, lines, nil
}

// printOverview prints the queues and workers of the Redis at url (with
// asJSON, as a JSON document), and the runs submitted from here that the
// queue lost, which fail the command.
func printOverview(ctx context.Context, c *queue.Client, url string, asJSON bool, stdout, stderr io.Writer) int {
	qs, ws, err := c.Overview(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop status: %v\n", err)
		return exitFailure
	}
	lost, err := vanished(ctx, c, url)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop status: %v\n", err)
		return exitFailure
	}
	code := exitOK
	if len(lost) > 0 {
		code = exitFailure
	}
	if asJSON {
		_ = writeDocument(stdout, map[string]any{"queues": qs, "workers": ws, "vanished": orEmpty(lost)})
		return code
	}
	if len(lost) > 0 {
		fmt.Fprintf(stdout, "vanished: %d runs submitted from here are unknown to the queue (%s): its Redis lost them (restarted without persistence?); submit them again\n",
			len(lost), firstFewIDs(lost))
	}
	for _, q := range qs {
		fmt.Fprintf(stdout, "queue %s: %d queued, %d running, %d retrying, %d scheduled, %d done, %d archived\n",
			q.Queue, q.Queued, q.Running, q.Retrying, q.Scheduled, q.Done, q.Archived)
	}
	for _, w := range ws {
		fmt.Fprintf(stdout, "worker %s (%s): %d of %d busy at its last heartbeat (every 5 s)\n", w.Name, strings.Join(w.Queues, ","), len(w.Running), w.Concurrency)
	}
	if len(qs) == 0 && len(lost) == 0 {
		fmt.Fprintln(stdout, "no queues yet: submit a run with 'cogloop submit'")
	}
	return code
}

func runOK(st *queue.Status) bool {
	return st.State == queue.Done && st.Record != nil && st.Record.State == queue.Done
}

func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("status", stderr)
	redisURL := fs.String("redis", "", "")
	asJSON := fs.Bool("json", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "status", err)
	}
	c, err := queue.NewClient(redisFlag(*redisURL))
	if err != nil {
		return usageError(stderr, "status", err)
	}
	defer func() { _ = c.Close() }() // reads only; Close releases the connection
	if len(pos) == 0 {
		return printOverview(ctx, c, redisFlag(*redisURL), *asJSON, stdout, stderr)
	}
	code := exitOK
	var all []*queue.Status
	for _, id := range pos {
		st, err := c.Status(ctx, id)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop status: %v\n", err)
			code = exitFailure
			continue
		}
		all = append(all, st)
		if !*asJSON {
			fmt.Fprintln(stdout, statusLine(st))
		}
	}
	if *asJSON {
		_ = writeDocument(stdout, all)
	}
	return code
}

// statusLine says where a run is in one line.
func statusLine(st *queue.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", st.RunID, st.State)
	r := st.Record
	switch st.State {
	case queue.Running:
		fmt.Fprintf(&b, " on %s", st.Worker)
		if st.Orphaned {
			b.WriteString(" (orphaned: the worker stopped heartbeating; asynq re-delivers the run about 60 s after)")
		}
	case queue.Retrying:
		fmt.Fprintf(&b, " at %s after: %s", st.NextAt.Format(time.TimeOnly), st.LastError)
	case queue.Archived:
		msg := st.LastError
		if r != nil && r.Error != "" {
			msg = r.Error
		}
		fmt.Fprintf(&b, " (failed, not retried): %s", msg)
	case queue.Done:
		if r != nil && r.State == queue.Failed {
			fmt.Fprintf(&b, " (failed): %s", r.Error)
		} else if r != nil {
			fmt.Fprintf(&b, " (ok) on %s", r.Worker)
		}
	}
	if r != nil {
		fmt.Fprintf(&b, "; attempt %d", r.Attempt)
		for _, l := range r.Loops {
			fmt.Fprintf(&b, "; loop %s pass %d of %d", l.Path, l.Pass, l.Max)
			if at := r.Attempts[len(r.Attempts)-1]; at.ResumedAfter[l.Path] > 0 {
				fmt.Fprintf(&b, " (resumed after %d)", at.ResumedAfter[l.Path])
			}
		}
	}
	fmt.Fprintf(&b, " [queue %s, %d of %d retries used]", st.Queue, st.Retried, st.MaxRetry)
	return b.String()
}

func cmdResult(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("result", stderr)
	redisURL := fs.String("redis", "", "")
	wait := fs.Bool("wait", false, "")
	id, err := parseOneArg(fs, args, "one run id")
	if err != nil {
		return usageError(stderr, "result", err)
	}
	c, err := queue.NewClient(redisFlag(*redisURL))
	if err != nil {
		return usageError(stderr, "result", err)
	}
	defer func() { _ = c.Close() }() // reads only; Close releases the connection
	return printResult(ctx, c, id, *wait, stdout, stderr)
}

// printResult prints the run's JSON document; exit 0 for an ok run.
func printResult(ctx context.Context, c *queue.Client, id string, wait bool, stdout, stderr io.Writer) int {
	var st *queue.Status
	var err error
	if wait {
		st, err = c.Wait(ctx, id, 200*time.Millisecond)
	} else {
		st, err = c.Status(ctx, id)
	}
	if err != nil {
		fmt.Fprintf(stderr, "cogloop result: %v\n", err)
		return exitCode(ctx, exitFailure)
	}
	if !st.Final() {
		fmt.Fprintf(stderr, "cogloop result: %s; wait for it with --wait\n", statusLine(st))
		return exitFailure
	}
	if st.Record == nil || len(st.Record.Result) == 0 {
		fmt.Fprintf(stderr, "cogloop result: %s: the run has no result\n", statusLine(st))
		return exitFailure
	}
	var doc any
	if err := json.Unmarshal(st.Record.Result, &doc); err != nil {
		fmt.Fprintf(stderr, "cogloop result: run %s: %v\n", id, err)
		return exitFailure
	}
	if err := writeDocument(stdout, doc); err != nil {
		fmt.Fprintf(stderr, "cogloop result: %v\n", err)
		return exitFailure
	}
	if !runOK(st) {
		fmt.Fprintf(stderr, "cogloop result: run %s failed: %s\n", id, st.Record.Error)
		return exitFailure
	}
	return exitOK
}

func orEmpty(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// firstFewIDs names up to 10 run ids and counts the rest.
func firstFewIDs(ids []string) string {
	const n = 10
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}
