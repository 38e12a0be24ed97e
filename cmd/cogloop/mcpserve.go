package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/mcp"
)

const mcpServeHelp = `usage: cogloop mcp serve WORKFLOW.yaml... [flags]

Offers each workflow as an MCP tool named by its orchestrator id: its input
schema comes from the orchestrator's inputs: (else {input: string}), its
description from the orchestrator's description:. A call runs the workflow
once; each loop pass sends a progress notification (loop, pass, score; the
stop reason when a loop ends), a canceled call cancels the run, and the
result is the run's answer plus {status, run_id, loops: [{loop,
loops_completed, final_score, stop_reason}]} as structured content.
Serves one client on stdin/stdout by default; logs go to stderr.
Exit codes: 0 the client closed the connection, 1 the server failed, 2 bad
usage or an invalid workflow, 130/143 after SIGINT/SIGTERM.

flags:
  --http ADDR       serve streamable HTTP on ADDR (127.0.0.1:8931; :0 picks a port)
                    at /mcp instead of stdio
  --token T         require "Authorization: Bearer T" on every HTTP request
                    (default $COGLOOP_MCP_TOKEN); required when ADDR is not loopback
  --script F        answer every LLM call from the scripted replies in F, read
                    afresh for each call (every agent id in F must be defined by one
                    of the workflows)
  --redis URL       keep loop histories and checkpoints in Redis (default $REDIS_URL);
                    each call's run is then resumable with cogloop run --resume ID
  --namespace N     key namespace in the store (default "default")
  --record-dir DIR  write each call's run record to DIR/<run id>.jsonl (default
                    $COGLOOP_RECORD_DIR, else .cogloop/runs)
  --no-record       write no run records
  --strict          every warning (load or run time) is an error
  --presets DIR     add (or override) scoring presets from DIR
`

// envMCPToken is where --token is read from when the flag is not given (a
// token on the command line is visible to every user of the machine).
const envMCPToken = "COGLOOP_MCP_TOKEN"

type mcpServeFlags struct {
	httpAddr, token  string
	script, presets  string
	recordDir        string
	noRecord, strict bool
	store            storeFlags
}

func cmdMCPServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f mcpServeFlags
	fs := newFlagSet("mcp", stderr)
	fs.StringVar(&f.httpAddr, "http", "", "")
	fs.StringVar(&f.token, "token", os.Getenv(envMCPToken), "")
	fs.StringVar(&f.script, "script", "", "")
	fs.StringVar(&f.store.redisURL, "redis", "", "")
	fs.StringVar(&f.store.namespace, "namespace", "", "")
	fs.StringVar(&f.recordDir, "record-dir", "", "")
	fs.BoolVar(&f.noRecord, "no-record", false, "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.StringVar(&f.presets, "presets", "", "")
	files, err := parseInterspersed(fs, args)
	if err == nil {
		err = f.check(files, flagGiven(fs, "token"))
	}
	if err != nil {
		return usageError(stderr, "mcp", err)
	}
	wfs, ids, err := loadServed(files, f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	srv := &mcpServer{flags: f, stderr: &lockedWriter{w: stderr}, agentIDs: ids}
	offers := make([]mcp.Offer, 0, len(wfs))
	for _, wf := range wfs {
		if f.script != "" {
			if _, err := readScript(f.script, wf, ids...); err != nil {
				fmt.Fprintf(stderr, "cogloop mcp serve: %s\n", strings.TrimPrefix(err.Error(), errBadScript.Error()+": "))
				return exitUsage
			}
		}
		offers = append(offers, srv.offer(wf))
	}
	host, err := mcp.NewHost(moduleVersion(), offers)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop mcp serve: %v\n", err)
		return exitUsage
	}
	store, err := f.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	if store != nil {
		defer func() { _ = store.Close() }()
		srv.opts = append(srv.opts, cogloop.WithMemory(store), cogloop.WithCheckpoints())
	}
	if f.httpAddr == "" {
		fmt.Fprintf(srv.stderr, "cogloop mcp serve: %s on stdio\n", plural(len(offers), "tool"))
		if err := host.ServeStdio(ctx, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil {
			fmt.Fprintf(srv.stderr, "cogloop mcp serve: %v\n", err)
			return exitFailure
		}
		return exitCode(ctx, exitOK)
	}
	return serveMCPHTTP(ctx, host, f, srv.stderr, len(offers))
}

// check refuses mcp serve's arguments (the workflow files) and flags when
// they contradict each other; tokenGiven says --token was given.
func (f mcpServeFlags) check(files []string, tokenGiven bool) error {
	switch {
	case len(files) == 0:
		return errors.New("mcp serve needs one or more workflow files")
	case f.noRecord && f.recordDir != "":
		return errors.New("--no-record and --record-dir contradict each other; pick one")
	case f.httpAddr == "" && tokenGiven:
		return errors.New("--token protects --http; a stdio server is reached only by the process that started it")
	case f.httpAddr != "":
		return checkServeAddr(f.httpAddr, f.token)
	}
	return nil
}

// loadServed loads the workflows to serve; ids are every agent id of them
// and a script's stand-in name for each MCP server they use (what a
// --script may answer). Load warnings go to stderr.
func loadServed(files []string, f mcpServeFlags, stderr io.Writer) (wfs []*cogloop.Workflow, ids []string, err error) {
	for _, file := range files {
		wf, err := cogloop.Load(file, loadOptions(f.presets, f.strict)...)
		if err != nil {
			return nil, nil, err
		}
		printWarnings(stderr, wf.Warnings)
		wfs = append(wfs, wf)
		ids = append(ids, wf.AgentIDs()...)
		for _, name := range wf.MCPServers() {
			ids = append(ids, scripted.ServerPrefix+name) // a script may stand in for it
		}
	}
	return wfs, ids, nil
}

// checkServeAddr refuses an address that is not host:port, and one off
// loopback without a token.
func checkServeAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w (give HOST:PORT, e.g. 127.0.0.1:8931)", addr, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	if !loopback && token == "" {
		return fmt.Errorf("--http %q listens beyond loopback: give --token T (or set %s), which clients send as Authorization: Bearer T; or listen on 127.0.0.1", addr, envMCPToken)
	}
	return nil
}

// serveMCPHTTP serves host at /mcp on f.httpAddr until ctx ends, then
// shuts down within a bounded wait (runs in flight are canceled).
func serveMCPHTTP(ctx context.Context, host *mcp.Host, f mcpServeFlags, stderr io.Writer, tools int) int {
	ln, err := net.Listen("tcp", f.httpAddr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop mcp serve: %v\n", err)
		return exitFailure
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", host.Handler(f.token))
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return runCtx }}
	auth := "no token"
	if f.token != "" {
		auth = "bearer token required"
	}
	fmt.Fprintf(stderr, "cogloop mcp serve: %s at http://%s/mcp (%s)\n", plural(tools, "tool"), ln.Addr(), auth)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "cogloop mcp serve: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	cancel() // the runs in flight end first, then their responses
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer scancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	return exitCode(ctx, exitOK)
}

// mcpServer runs the workflows for the calls of `mcp serve`.
type mcpServer struct {
	flags    mcpServeFlags
	stderr   io.Writer
	agentIDs []string
	opts     []cogloop.RunOption // the store's, shared by every call
}

// offer is wf as an MCP tool.
func (s *mcpServer) offer(wf *cogloop.Workflow) mcp.Offer {
	schema := wf.InputSchema()
	text := schema == nil
	if text {
		schema = mcp.TextInputSchema()
	}
	desc := wf.Description()
	if desc == "" {
		desc = fmt.Sprintf("Runs the cogloop workflow %q on the input and returns its answer.", wf.ID())
	}
	return mcp.Offer{Name: wf.ID(), Description: desc, InputSchema: schema,
		Run: func(ctx context.Context, args map[string]any, progress func(mcp.Progress)) mcp.Answer {
			var input any = args
			if text {
				input = args["input"]
			}
			return s.call(ctx, wf, input, progress)
		}}
}

// call runs wf once for one tool call, as cogloop run would: a fresh run id,
// the script read afresh, the record written, warnings on stderr.
func (s *mcpServer) call(ctx context.Context, wf *cogloop.Workflow, input any, progress func(mcp.Progress)) mcp.Answer {
	runID := cogloop.NewRunID()
	failed := func(err error) mcp.Answer {
		fmt.Fprintf(s.stderr, "cogloop mcp serve: %s: run %s: %v\n", wf.ID(), runID, err)
		return mcp.Answer{Text: err.Error(), Failed: true,
			Structured: map[string]any{"status": cogloop.StatusFailed, "run_id": runID, "loops": []any{}, "error": err.Error()}}
	}
	opts := append([]cogloop.RunOption{cogloop.WithRunID(runID)}, s.opts...)
	if s.flags.script != "" {
		script, err := readScript(s.flags.script, wf, s.agentIDs...)
		if err != nil {
			return failed(fmt.Errorf("--script %s: %w", s.flags.script, err))
		}
		opts = append(opts, cogloop.WithModels(script))
	}
	rec, recObservers, err := startRecording(runFlags{recordDir: s.flags.recordDir, noRecord: s.flags.noRecord}, runID, s.stderr)
	if err != nil {
		return failed(err)
	}
	if rec.w != nil {
		opts = append(opts, cogloop.WithModelCalls())
	}
	p := &passes{progress: progress}
	records, warn := fanOut(recObservers), warningPrinter(s.stderr)
	opts = append(opts, cogloop.WithObserver(func(e event.Event) {
		records(e)
		warn(e)
		p.observe(e)
	}))
	fmt.Fprintf(s.stderr, "cogloop mcp serve: %s: run %s started\n", wf.ID(), runID)
	res, runErr := wf.Run(ctx, input, opts...)
	if err := rec.finish(runID, s.stderr); err != nil && runErr == nil {
		runErr = err
	}
	if res == nil {
		return failed(runErr)
	}
	out := map[string]any{"status": res.Status, "run_id": runID, "loops": p.loops()}
	a := mcp.Answer{Text: res.Text(), Structured: out}
	if runErr != nil {
		out["error"] = runErr.Error()
		a.Failed, a.Text = true, runErr.Error()
	}
	if runErr != nil {
		fmt.Fprintf(s.stderr, "cogloop mcp serve: %s: run %s %s: %v\n", wf.ID(), runID, res.Status, runErr)
	} else {
		fmt.Fprintf(s.stderr, "cogloop mcp serve: %s: run %s %s\n", wf.ID(), runID, res.Status)
	}
	return a
}

// passes turns a run's loop events into progress notifications and keeps
// each loop's end for the structured result.
type passes struct {
	progress func(mcp.Progress)
	mu       sync.Mutex
	ends     []map[string]any
}

func (p *passes) observe(e event.Event) {
	switch e.Kind {
	case event.LoopIteration:
		pass, _ := e.Data["loop_number"].(int)
		meta := map[string]any{"loop": e.Node, "pass": pass}
		msg := fmt.Sprintf("loop %s: pass %d", e.Node, pass)
		if limit, ok := e.Data["max_loops"].(int); ok && limit > 0 {
			msg += fmt.Sprintf(" of %d", limit)
		}
		if score, ok := e.Data["score"].(float64); ok && e.Data["score_found"] == true {
			meta["score"] = score
			msg += fmt.Sprintf(", score %.2f", score)
		}
		if e.Error != "" {
			msg += ", failed: " + e.Error
		}
		p.progress(mcp.Progress{Message: msg, Meta: meta})
	case event.LoopEnd:
		end := map[string]any{"loop": e.Node, "loops_completed": e.Data["loops_completed"], "stop_reason": e.Data["stop_reason"]}
		msg := fmt.Sprintf("loop %s: stopped (%v) after %v passes", e.Node, e.Data["stop_reason"], e.Data["loops_completed"])
		if score, ok := e.Data["final_score"].(float64); ok {
			end["final_score"] = score
			msg += fmt.Sprintf(", score %.2f", score)
		}
		p.mu.Lock()
		p.ends = append(p.ends, end)
		p.mu.Unlock()
		meta := map[string]any{"loop": e.Node, "stop_reason": end["stop_reason"], "loops_completed": end["loops_completed"]}
		if sc, ok := end["final_score"]; ok {
			meta["score"] = sc
		}
		p.progress(mcp.Progress{Message: msg, Meta: meta})
	}
}

func (p *passes) loops() []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any{}, p.ends...)
}

// flagGiven reports whether name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// lockedWriter serialises the writes of concurrent calls.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// moduleVersion is the module's version for MCP's initialize.
func moduleVersion() string {
	v, _, _ := strings.Cut(versionText(), "\n")
	return strings.TrimPrefix(v, "cogloop ")
}
