package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/records"
)

type runFlags struct {
	json, jsonInput   bool
	inputFile, script string
	replay            string
	trace             string
	runID, resume     string
	allowChange       bool
	replaceRun        bool
	checkpointTTL     time.Duration
	keepFinished      time.Duration
	store             storeFlags
	presets           string
	strict            bool
	verbose, quiet    bool
	recordDir, report string
	noRecord          bool
	fork, pass        string // cogloop fork RUN --pass K (fork.go)
	ask               bool
}

// define defines run's flags on fs (fork takes them too).
func (f *runFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "")
	fs.BoolVar(&f.jsonInput, "json-input", false, "")
	fs.StringVar(&f.inputFile, "input-file", "", "")
	fs.StringVar(&f.script, "script", "", "")
	fs.StringVar(&f.replay, "replay", "", "")
	fs.StringVar(&f.trace, "trace", "", "")
	fs.StringVar(&f.runID, "run-id", "", "")
	fs.StringVar(&f.resume, "resume", "", "")
	fs.BoolVar(&f.allowChange, "allow-config-change", false, "")
	fs.BoolVar(&f.replaceRun, "replace-run", false, "")
	fs.DurationVar(&f.checkpointTTL, "checkpoint-ttl", memory.DefaultCheckpointTTL, "")
	fs.DurationVar(&f.keepFinished, "keep-finished", cogloop.DefaultKeepFinished, "")
	fs.StringVar(&f.store.redisURL, "redis", "", "")
	fs.StringVar(&f.store.namespace, "namespace", "", "")
	fs.StringVar(&f.presets, "presets", "", "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.BoolVar(&f.verbose, "v", false, "")
	fs.BoolVar(&f.quiet, "q", false, "")
	fs.StringVar(&f.recordDir, "record-dir", "", "")
	fs.BoolVar(&f.noRecord, "no-record", false, "")
	fs.StringVar(&f.report, "report", "", "")
	fs.BoolVar(&f.ask, "ask", false, "")
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runCommand(ctx, args, stdout, stderr, nil)
}

// runCommand is cogloop run; watch (nil: none) hears every event of the run
// right after its record does (cogloop serve's runs).
func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer, watch event.Observer) int {
	var f runFlags
	fs := newFlagSet("run", stderr)
	f.define(fs)
	usageErr := func(err error) int { return usageError(stderr, "run", err) }
	pos, err := parseWorkflowInput(fs, args)
	switch {
	case err != nil:
		return usageErr(err)
	case f.verbose && f.quiet:
		return usageErr(errors.New("-v and -q contradict each other; pick one"))
	case f.resume != "" && f.runID != "" && f.resume != f.runID:
		return usageErr(errors.New("--resume names the run; leave out --run-id"))
	case f.replaceRun && f.runID == "":
		return usageErr(errors.New("--replace-run replaces the run named by --run-id; give --run-id"))
	case f.replaceRun && f.resume != "":
		return usageErr(errors.New("--replace-run and --resume contradict each other; pick one"))
	case f.checkpointTTL <= 0:
		return usageErr(fmt.Errorf("--checkpoint-ttl must be positive, got %s", f.checkpointTTL))
	case f.keepFinished <= 0:
		return usageErr(fmt.Errorf("--keep-finished must be positive, got %s", f.keepFinished))
	case len(pos) == 2 && f.inputFile != "":
		return usageErr(errors.New("give the input as an argument or with --input-file, not both"))
	case f.noRecord && f.recordDir != "":
		return usageErr(errors.New("--no-record and --record-dir contradict each other; pick one"))
	case f.script != "" && f.replay != "":
		return usageErr(errors.New("--script and --replay both answer the model calls: give one"))
	}
	return runParsed(ctx, f, pos, stdout, stderr, watch)
}

// runParsed runs a workflow with run's flags parsed: pos are the workflow
// file and the input, if given; watch (nil: none) hears every event of the
// run right after its record does.
func runParsed(ctx context.Context, f runFlags, pos []string, stdout, stderr io.Writer, watch event.Observer) int {
	cmd := "run"
	if f.fork != "" {
		cmd = "fork"
	}
	usageErr := func(err error) int { return usageError(stderr, cmd, err) }
	f.store.recordDir = f.recordDir
	wf, err := cogloop.Load(pos[0], loadOptions(f.presets, f.strict)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	opts := []cogloop.RunOption{cogloop.WithCheckpointTTL(f.checkpointTTL), cogloop.WithKeepFinished(f.keepFinished)}
	var script *scripted.Script
	if f.script != "" {
		s, err := readScript(f.script, wf)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop run: %s\n", strings.TrimPrefix(err.Error(), errBadScript.Error()+": "))
			return exitUsage
		}
		script = s
		opts = append(opts, cogloop.WithModels(script))
	}
	var replay *replaySource
	if f.replay != "" {
		rl, err := loadReplay(f.replay)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop run: %v\n", err)
			return exitUsage
		}
		replay = rl.source()
		opts = append(opts, cogloop.WithModels(replay))
	}
	input, err := readInput(pos[1:], f)
	if err != nil {
		return usageErr(err)
	}

	// From here on, stderr is the console: the progress line (on a terminal)
	// is cleared before anything else is written.
	// With -v the replies stream onto stderr line by line: no progress line.
	con := newConsole(stderr, isTerminal(stderr) && !f.quiet && !f.verbose, terminalWidth(stderr))
	defer con.Done()
	stderr = con

	store, err := f.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	if store != nil {
		defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
		opts = append(opts, cogloop.WithMemory(store))
		if script != nil && f.resume != "" {
			// a run that stopped to wait or pause goes on with the next replies
			info, ok, err := loadRunInfo(ctx, store, f.resume)
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "warning: run %s: read how many scripted replies it used (they start over): %v\n", f.resume, err)
			case ok:
				script.Skip(info.ScriptCalls)
			}
		}
	}
	if f.runID != "" && f.resume == "" && !f.replaceRun {
		if err := refuseEarlierRun(ctx, f, store); err != nil {
			fmt.Fprintf(stderr, "cogloop run: %v\n", err)
			if errors.Is(err, memory.ErrLeaseHeld) {
				return exitFailure // as the run's own lease refuses it
			}
			return exitUsage
		}
	}
	runID := f.runID
	if runID == "" {
		runID = cogloop.NewRunID()
	}
	hint := !f.quiet && (!f.json || isTerminal(con.w))
	var forkLine string
	switch {
	case f.resume != "":
		runID = f.resume
		opts = append(opts, cogloop.WithResume(f.resume, f.allowChange))
	case f.fork != "":
		opts = append(opts, cogloop.WithRunID(runID), cogloop.WithFork(f.fork, f.pass))
		if hint { // once the fork has its checkpoint: a refused fork is no run to resume
			forkLine = fmt.Sprintf("cogloop: run %s, forked from run %s at pass %s (resume with --resume %s)", runID, f.fork, f.pass, runID)
		}
	case store != nil:
		// Checkpointed (in Redis, or in files beside the records): the run can
		// be resumed, forked and answered from another process.
		opts = append(opts, cogloop.WithRunID(runID), cogloop.WithCheckpoints())
		if hint && (f.runID != "" || f.store.url() != "") {
			fmt.Fprintf(stderr, "cogloop: run %s (resume with --resume %s)\n", runID, runID)
		}
	case f.runID != "":
		// No store outlives the process (the checkpoint directory could not
		// be written): --resume could not find the checkpoint.
		opts = append(opts, cogloop.WithRunID(runID), cogloop.WithCheckpoints())
		if hint {
			fmt.Fprintf(stderr, "cogloop: run %s (not resumable: its checkpoint stays in this process; checkpoints need a writable record directory or --redis URL)\n", runID)
		}
	default:
		opts = append(opts, cogloop.WithRunID(runID))
	}
	stopPause, err := prepareHuman(ctx, &f, pos, input, wf, store, runID, &opts, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	defer stopPause()
	rec, recObservers, err := startRecording(f, runID, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}

	tracing, err := startTracing(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitUsage
	}
	opts = append(opts, tracing.options()...)
	if rec.w != nil || replay != nil {
		// the record keeps every call, for script and --replay; a replay
		// watches them for agents it does not answer
		opts = append(opts, cogloop.WithModelCalls())
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var observers []event.Observer
	var tr *trace
	if f.trace != "" {
		tr, err = newTrace(f.trace, stderr, cancel)
		if err != nil {
			tracing.stop()
			fmt.Fprintf(stderr, "cogloop: %v\n", err)
			return exitFailure
		}
		observers = append(observers, tr.Observe)
	}
	limits := &loopLimits{}
	if forkLine != "" {
		observers = append(observers, func(e event.Event) {
			if e.Kind == event.RunStart && e.Node != "" {
				fmt.Fprintln(stderr, forkLine)
			}
		})
	}
	observers = append(observers, con.Observe, limits.Observe)
	var events records.Buffer // the summary's loops, as show reads them from the record
	if !f.quiet && !f.json {
		observers = append(observers, events.Observe)
	}
	if f.trace != "-" { // with --trace -, the warnings are trace lines on stderr already
		observers = append(observers, warningPrinter(stderr))
	}
	if f.verbose {
		observers = append(observers, newLivePrinter(stderr).Observe)
		opts = append(opts, cogloop.WithDeltas())
	}
	// A record is what --trace writes plus the model.call events (each
	// call's request and reply, for script and --replay); the others see
	// model.call only when OpenTelemetry asked for it, as before.
	others, records := fanOut(observers), fanOut(recObservers)
	keepCalls := tracing != nil
	opts = append(opts, cogloop.WithObserver(func(e event.Event) {
		if replay != nil {
			if w, ok := replay.scriptedWarning(e); ok {
				others(w)
				records(w)
			}
		}
		if keepCalls || e.Kind != event.ModelCall {
			others(e)
		}
		records(e)
		if watch != nil {
			watch(e)
		}
	}))

	res, runErr := wf.Run(ctx, input, opts...)
	if errors.Is(runErr, cogloop.ErrWorkflowChanged) {
		runErr = fmt.Errorf("%w; the flag for that is --allow-config-change", runErr)
	}
	con.Done()
	tracing.stop()
	// A trace or report that could not be written fails the run: printed
	// last as the run's error, or now when the run failed already.
	later := func(err error) {
		if runErr == nil {
			runErr = err
			return
		}
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
	}
	if tr != nil {
		if err := tr.Close(); err != nil {
			later(err)
		}
	}
	if err := rec.finish(runID, stderr); err != nil {
		later(err)
	}
	code := exitOK
	if runErr != nil {
		code = exitFailure
	}
	if stopped(res) {
		code, runErr = exitWaiting, stopNote(runErr)
		if script != nil && store != nil {
			if err := keepScriptCalls(context.WithoutCancel(ctx), store, runID, script.Calls()); err != nil {
				fmt.Fprintf(stderr, "warning: run %s: keep the scripted replies used so far: %v\n", runID, err)
			}
		}
	}
	// The failure is the last line on stderr, after the summary, where the
	// eye lands (as go test ends with FAIL).
	fail := func() {
		if runErr != nil {
			fmt.Fprintf(stderr, "cogloop: %v\n", runErr)
		}
	}
	if res == nil {
		fail()
		if f.fork != "" && ctx.Err() == nil {
			code = exitUsage // a refused fork: nothing ran
		}
		return exitCode(ctx, code)
	}
	if f.json {
		if err := writeJSON(stdout, res); err != nil {
			fmt.Fprintf(stderr, "cogloop: write output: %v\n", err)
			return exitFailure
		}
		fail()
		return exitCode(ctx, code)
	}
	if code == exitOK {
		fmt.Fprintln(stdout, res.Text())
	}
	if !f.quiet {
		writeSummary(stderr, res, limits, events.Events())
	}
	if stopped(res) {
		writeStopped(stderr, res, f, pos[0])
	}
	fail()
	return exitCode(ctx, code)
}

// exitCode is code, or the signal's exit code when a signal stopped the run.
func exitCode(ctx context.Context, code int) int {
	if s := signalExit(ctx); s != 0 {
		return s
	}
	return code
}

func writeJSON(w io.Writer, res *cogloop.Result) error {
	return writeDocument(w, res.Document())
}

// writeDocument prints a JSON document indented, without HTML escaping.
func writeDocument(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// printJSON is a --json command's output: v as [writeDocument] prints it, or
// the error after prefix and exit code 1.
func printJSON(stdout, stderr io.Writer, prefix string, v any) int {
	if err := writeDocument(stdout, v); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		return exitFailure
	}
	return exitOK
}

func printWarnings(w io.Writer, ps []load.Problem) {
	for _, p := range ps {
		fmt.Fprintf(w, "warning: %s\n", p.Error())
	}
}

func warningPrinter(w io.Writer) event.Observer {
	return func(e event.Event) {
		if e.Kind == event.Warning {
			fmt.Fprintf(w, "warning: %s: %s\n", e.Node, e.Message)
		}
	}
}

func fanOut(obs []event.Observer) event.Observer {
	return func(e event.Event) {
		for _, o := range obs {
			o(e)
		}
	}
}

func loadOptions(presets string, strict bool) []cogloop.LoadOption {
	var opts []cogloop.LoadOption
	if presets != "" {
		opts = append(opts, cogloop.WithPresetsDir(presets))
	}
	if strict {
		opts = append(opts, cogloop.WithStrict())
	}
	return opts
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", stderr)
	var presets string
	var strict, connect bool
	fs.StringVar(&presets, "presets", "", "")
	fs.BoolVar(&strict, "strict", false, "")
	fs.BoolVar(&connect, "connect", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usageError(stderr, "validate", err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "validate", errors.New("validate takes one workflow file"))
	}
	wf, err := cogloop.Load(pos[0], loadOptions(presets, strict)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	for _, p := range wf.Preflight() {
		// The environment, not the file: a warning under --strict too.
		fmt.Fprintf(stderr, "warning: %s\n", p)
	}
	for _, p := range wf.Notes {
		fmt.Fprintf(stderr, "note: %s\n", p.Error())
	}
	for _, p := range wf.Hints {
		fmt.Fprintf(stderr, "hint: %s\n", p.Error())
	}
	if connect {
		servers, err := wf.MCPTools(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", pos[0], err)
			return exitUsage
		}
		for _, s := range servers {
			fmt.Fprintf(stdout, "%s: ok, %d tools\n", s.What, len(s.Tools))
		}
	}
	fmt.Fprintf(stdout, "%s: ok (workflow %q)\n", pos[0], wf.ID())
	return exitOK
}
