package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/app/serve"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
)

// envToken is the token of cogloop serve when --token is not given.
const envToken = "COGLOOP_TOKEN"

const serveHelp = `usage: cogloop serve [flags]

Serves a web UI and a JSON API over the recorded runs: the runs (live status,
passes, scores), a run's page (the report's page, live: the score chart gains a
point as each pass ends, the current agent's reply streams, tool calls, spend,
the stop reason), a comparison of runs (/compare?runs=a,b), the queue (with
--redis), and starting runs from workflows under --workflows. Runs started
elsewhere (cogloop run, worker) show live too: their records are followed as
they grow. Stop it with Ctrl-C.

flags:
  --addr HOST:PORT  where to listen (default 127.0.0.1:7878); an address off
                    loopback needs --token
  --record-dir DIR  the run records (default $COGLOOP_RECORD_DIR, else .cogloop/runs)
  --redis URL       show the queue of this Redis (default $REDIS_URL); runs
                    started here keep their checkpoints in it (without it,
                    in files under the record directory, as cogloop run does)
  --workflows DIR   allow starting runs of the workflow files under DIR (and
                    nothing else); scripted replies beside a workflow answer
                    its model calls: X.replies.yaml next to X.yaml, or
                    replies.yaml next to workflow.yaml
  --token T         every request needs T (Authorization: Bearer T, or the
                    cookie the /login page sets); default $COGLOOP_TOKEN

A run's page answers the question a waiting run asks and pauses a running
one, through the store 'cogloop answer' and 'pause' use (Redis with --redis,
else the checkpoint files under the record directory); each finished pass of
a loop forks the run from there (cogloop fork).

API: GET /api/runs, GET /api/runs/ID, GET /api/runs/ID/events (Server-Sent
Events, resumable with Last-Event-ID), POST /api/runs {"workflow", "input"},
POST /api/runs/ID/answer {"kind", "approved"|"score"|"text"|"choice"|"json",
"comment", "path"}, POST /api/runs/ID/pause, POST /api/runs/ID/fork {"pass",
"workflow", "input"} (cogloop fork), GET /api/workflows, GET /api/queue.
See the README, "Watching runs".
`

type serveFlags struct {
	addr, recordDir, redisURL, workflows, token string
}

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f serveFlags
	fs := newFlagSet("serve", stderr)
	fs.StringVar(&f.addr, "addr", serve.DefaultAddr, "")
	fs.StringVar(&f.recordDir, "record-dir", "", "")
	fs.StringVar(&f.redisURL, "redis", "", "")
	fs.StringVar(&f.workflows, "workflows", "", "")
	fs.StringVar(&f.token, "token", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	if len(pos) > 0 {
		return usageError(stderr, "serve", fmt.Errorf("serve takes no arguments, got %q", pos[0]))
	}
	if f.token == "" {
		f.token = os.Getenv(envToken)
	}
	// The runs serve starts never ask on serve's own terminal: their human
	// steps wait for an answer through the API.
	stdin = strings.NewReader("")
	srv, closeQueue, err := newServer(f, stderr)
	if err != nil {
		return usageError(stderr, "serve", err)
	}
	defer closeQueue()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop serve: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stdout, "cogloop serve: http://%s/\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shut) // event streams end with the server below
	}
	_ = srv.Close() // cancels the runs started here and waits for them
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "cogloop serve: %v\n", err)
		return exitFailure
	}
	return exitCode(ctx, exitOK)
}

// newServer builds the server of f; closeQueue releases its queue client.
func newServer(f serveFlags, stderr io.Writer) (*serve.Server, func(), error) {
	d, err := recordDir(f.recordDir)
	if err != nil {
		return nil, nil, err
	}
	cfg := serve.Config{Addr: f.addr, Records: d, Workflows: f.workflows, Token: f.token, Log: stderr}
	redisURL := redisFlag(f.redisURL)
	closeQueue := func() {}
	if redisURL != "" {
		c, err := queue.NewClient(redisURL)
		if err != nil {
			return nil, nil, err
		}
		cfg.Queue = c
		closeQueue = func() { _ = c.Close() }
	}
	if f.workflows != "" {
		cfg.Start = startRun(d.Path, redisURL)
	}
	// The checkpoints of serve's runs: Redis with --redis, else the files
	// under the record directory (as cogloop run, answer and pause keep them).
	sf := storeFlags{redisURL: redisURL, recordDir: d.Path}
	cfg.Answer, cfg.Pause, cfg.Fork = answerRun(d.Path, sf), pauseRun(sf), forkRun(d.Path, sf)
	srv, err := serve.New(cfg)
	if err != nil {
		closeQueue()
		return nil, nil, err
	}
	return srv, closeQueue, nil
}

// startRun starts serve's runs as cogloop run (the same code): the input from
// a private file, the record in dir, -v for the replies' tokens as they stream.
func startRun(dir, redisURL string) func(context.Context, serve.StartRequest) error {
	return func(ctx context.Context, r serve.StartRequest) error {
		tmp, err := os.MkdirTemp("", "cogloop-serve-")
		if err != nil {
			return fmt.Errorf("keep the run's input: %w", err)
		}
		defer func() { _ = os.RemoveAll(tmp) }() // a private temporary directory
		in := filepath.Join(tmp, "input")
		if err := os.WriteFile(in, []byte(r.Input), 0o600); err != nil {
			return fmt.Errorf("keep the run's input: %w", err)
		}
		args := []string{r.Workflow, "--input-file", in, "--run-id", r.RunID, "--record-dir", dir, "-v"}
		if r.Replies != "" {
			args = append(args, "--script", r.Replies)
		}
		if redisURL != "" {
			args = append(args, "--redis", redisURL)
		}
		var out tail
		code := runCommand(ctx, args, io.Discard, &out, r.Observe)
		if code != exitOK && code != exitWaiting {
			return fmt.Errorf("exit %d: %s", code, out.last())
		}
		return nil
	}
}

// answerRun records an answer as cogloop answer does (cogloop.Answer on
// the run's store) and continues the run as it does (continueRun: run
// --resume with the workflow, input and script the run started with).
func answerRun(dir string, sf storeFlags) func(context.Context, string, human.Answer) (func(context.Context) error, error) {
	return func(ctx context.Context, runID string, a human.Answer) (func(context.Context) error, error) {
		store, err := openSteerStore(ctx, sf)
		if err != nil {
			return nil, err
		}
		defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
		if err := cogloop.Answer(ctx, store, runID, a); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			store, err := openSteerStore(ctx, sf)
			if err != nil {
				return err
			}
			defer func() { _ = store.Close() }() // as above
			var out tail
			af := answerFlags{store: sf, recordDir: dir, quiet: true}
			if code := continueRun(ctx, store, runID, af, io.Discard, &out); code != exitOK && code != exitWaiting {
				return fmt.Errorf("exit %d: %s", code, out.last())
			}
			return nil
		}, nil
	}
}

// pauseRun asks for a pause as cogloop pause does.
func pauseRun(sf storeFlags) func(context.Context, string) error {
	return func(ctx context.Context, runID string) error {
		store, err := openSteerStore(ctx, sf)
		if err != nil {
			return err
		}
		defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
		return cogloop.RequestPause(ctx, store, runID)
	}
}

// openSteerStore opens the store of serve's runs: Redis, or the checkpoint
// files under the record directory.
func openSteerStore(ctx context.Context, sf storeFlags) (memory.Store, error) {
	var warn tail
	store, err := sf.open(ctx, &warn)
	switch {
	case err != nil:
		return nil, err
	case store == nil:
		return nil, fmt.Errorf("the checkpoints of %s cannot be opened: %s", sf.checkpointDir(), warn.last())
	}
	return store, nil
}

// forkRun forks a run as cogloop fork does (the same code): the parent's
// workflow, input and scripted replies unless the request gives others. A
// fork refused before it began is an error with cogloop's message.
func forkRun(dir string, sf storeFlags) func(context.Context, serve.ForkRequest) error {
	return func(ctx context.Context, r serve.ForkRequest) error {
		args := []string{r.Parent, "--pass", r.Pass, "--run-id", r.RunID, "--record-dir", dir, "-v"}
		if sf.redisURL != "" {
			args = append(args, "--redis", sf.redisURL)
		}
		replies := r.Replies
		if r.Workflow != "" {
			args = append(args, r.Workflow)
		} else if replies == "" {
			replies = parentScript(ctx, sf, r.Parent)
		}
		if replies != "" {
			args = append(args, "--script", replies)
		}
		if r.Input != nil {
			args = append(args, "--input", *r.Input)
		}
		var out tail
		switch code := forkCommand(ctx, args, io.Discard, &out, r.Observe); code {
		case exitOK, exitWaiting:
			return nil
		case exitUsage:
			return errors.New(strings.TrimPrefix(out.last(), "cogloop: "))
		default:
			return fmt.Errorf("exit %d: %s", code, out.last())
		}
	}
}

// parentScript is the scripted replies run runID ran with ("": none, or
// not known).
func parentScript(ctx context.Context, sf storeFlags, runID string) string {
	store, err := openSteerStore(ctx, sf)
	if err != nil {
		return ""
	}
	defer func() { _ = store.Close() }() // a read; Close only releases the connection
	info, _, _ := loadRunInfo(ctx, store, runID)
	return info.Script
}

// tail keeps the last 8 KiB written to it (a run's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	return len(p), nil
}

// last is the last line that says what went wrong (cogloop: … or an error).
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "cogloop") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}
