package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/memory"
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
	pos, err := parseWorkflowInput(fs, args)
	if err == nil {
		err = f.check(pos)
	}
	if err != nil {
		return usageError(stderr, "run", err)
	}
	return runParsed(ctx, f, pos, stdout, stderr, watch)
}

// check refuses flags that contradict each other or are out of range; pos
// are the workflow file and the input, if given.
func (f runFlags) check(pos []string) error {
	if f.verbose && f.quiet {
		return errors.New("-v and -q contradict each other; pick one")
	}
	if err := f.checkRunID(); err != nil {
		return err
	}
	if len(pos) == 2 && f.inputFile != "" {
		return errors.New("give the input as an argument or with --input-file, not both")
	}
	return f.checkExclusive()
}

// checkRunID refuses flags that name the run or keep its checkpoint in
// ways that contradict each other.
func (f runFlags) checkRunID() error {
	switch {
	case f.resume != "" && f.runID != "" && f.resume != f.runID:
		return errors.New("--resume names the run; leave out --run-id")
	case f.replaceRun && f.runID == "":
		return errors.New("--replace-run replaces the run named by --run-id; give --run-id")
	case f.replaceRun && f.resume != "":
		return errors.New("--replace-run and --resume contradict each other; pick one")
	case f.checkpointTTL <= 0:
		return fmt.Errorf("--checkpoint-ttl must be positive, got %s", f.checkpointTTL)
	case f.keepFinished <= 0:
		return fmt.Errorf("--keep-finished must be positive, got %s", f.keepFinished)
	}
	return nil
}

// checkExclusive refuses flags that exclude each other: --no-record and
// --record-dir, --script and --replay (run and fork).
func (f runFlags) checkExclusive() error {
	switch {
	case f.noRecord && f.recordDir != "":
		return errors.New("--no-record and --record-dir contradict each other; pick one")
	case f.script != "" && f.replay != "":
		return errors.New("--script and --replay both answer the model calls: give one")
	}
	return nil
}

// runParsed runs a workflow with run's flags parsed: pos are the workflow
// file and the input, if given; watch (nil: none) hears every event of the
// run right after its record does.
func runParsed(ctx context.Context, f runFlags, pos []string, stdout, stderr io.Writer, watch event.Observer) int {
	wf, src, input, code := loadRun(f, pos, stderr)
	if code != exitOK {
		return code
	}
	opts := append([]cogloop.RunOption{cogloop.WithCheckpointTTL(f.checkpointTTL), cogloop.WithKeepFinished(f.keepFinished)}, src.options()...)
	f.store.recordDir = f.recordDir

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
		src.resumeScript(ctx, store, f.resume, stderr)
	}
	if code := checkRunID(ctx, f, store, stderr); code != exitOK {
		return code
	}
	hint := !f.quiet && (!f.json || isTerminal(con.w))
	runID, idOpts, forkLine := runIdentity(f, store, hint, stderr)
	opts = append(opts, idOpts...)
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
	if rec.w != nil || src.replay != nil {
		// the record keeps every call, for script and --replay; a replay
		// watches them for agents it does not answer
		opts = append(opts, cogloop.WithModelCalls())
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	view, err := newRunView(f, stderr, cancel)
	if err != nil {
		tracing.stop()
		fmt.Fprintf(stderr, "cogloop: %v\n", err)
		return exitFailure
	}
	observers, viewOpts := view.observers(f, con, forkLine)
	opts = append(opts, viewOpts...)
	// A record is what --trace writes plus the model.call events (each
	// call's request and reply, for script and --replay); the others see
	// model.call only when OpenTelemetry asked for it, as before.
	route := eventRoute{others: fanOut(observers), records: fanOut(recObservers), replay: src.replay, keepCalls: tracing != nil, watch: watch}
	opts = append(opts, cogloop.WithObserver(route.observe))

	res, runErr := wf.Run(ctx, input, opts...)
	con.Done()
	tracing.stop()
	out := newOutcome(res, closeRun(view.tr, rec, runID, runErr, stderr))
	if stopped(res) {
		src.keepScriptCalls(ctx, store, runID, stderr)
	}
	return out.print(ctx, stdout, stderr, f, pos[0], view)
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
