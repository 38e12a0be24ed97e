package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/memory"
)

// The parts of cogloop run (runParsed): where the model replies come from,
// the run's id and checkpoints, who hears its events, and how it ends.

// loadRun loads the workflow at pos[0], the model sources and the input
// (pos[1:] or --input-file); code is exitOK, or the exit code after the
// error was printed.
func loadRun(f runFlags, pos []string, stderr io.Writer) (wf *cogloop.Workflow, src modelSources, input any, code int) {
	cmd := "run"
	if f.fork != "" {
		cmd = "fork"
	}
	wf, err := cogloop.Load(pos[0], loadOptions(f.presets, f.strict)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, src, nil, exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	src, err = openModelSources(f, wf)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop run: %v\n", err)
		return nil, src, nil, exitUsage
	}
	input, err = readInput(pos[1:], f)
	if err != nil {
		return nil, src, nil, usageError(stderr, cmd, err)
	}
	return wf, src, input, exitOK
}

// modelSources answer a run's model calls from --script or --replay (both
// nil: the workflow's own models answer).
type modelSources struct {
	script *scripted.Script
	replay *replaySource
}

// openModelSources reads --script and --replay; the error is the usage
// error to print after "cogloop run: ".
func openModelSources(f runFlags, wf *cogloop.Workflow) (modelSources, error) {
	var src modelSources
	if f.script != "" {
		s, err := readScript(f.script, wf)
		if err != nil {
			return src, errors.New(strings.TrimPrefix(err.Error(), errBadScript.Error()+": "))
		}
		src.script = s
	}
	if f.replay != "" {
		rl, err := loadReplay(f.replay)
		if err != nil {
			return src, err
		}
		src.replay = rl.source()
	}
	return src, nil
}

// options hands the sources to the run.
func (s modelSources) options() []cogloop.RunOption {
	var opts []cogloop.RunOption
	if s.script != nil {
		opts = append(opts, cogloop.WithModels(s.script))
	}
	if s.replay != nil {
		opts = append(opts, cogloop.WithModels(s.replay))
	}
	return opts
}

// resumeScript makes a resumed run (resume: its id; "": not resumed) that
// stopped to wait or pause go on with the next scripted replies; when the
// count cannot be read they start over, with a warning.
func (s modelSources) resumeScript(ctx context.Context, store memory.Store, resume string, stderr io.Writer) {
	if s.script == nil || resume == "" {
		return
	}
	info, ok, err := loadRunInfo(ctx, store, resume)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "warning: run %s: read how many scripted replies it used (they start over): %v\n", resume, err)
	case ok:
		s.script.Skip(info.ScriptCalls)
	}
}

// keepScriptCalls keeps the count of scripted replies a stopped run used,
// for its --resume (see resumeScript); a failure is a warning.
func (s modelSources) keepScriptCalls(ctx context.Context, store memory.Store, runID string, stderr io.Writer) {
	if s.script == nil || store == nil {
		return
	}
	if err := keepScriptCalls(context.WithoutCancel(ctx), store, runID, s.script.Calls()); err != nil {
		fmt.Fprintf(stderr, "warning: run %s: keep the scripted replies used so far: %v\n", runID, err)
	}
}

// checkRunID refuses a new run under --run-id of an earlier one (not with
// --resume or --replace-run): exitOK when the run may start, else the
// error is printed and its exit code returned.
func checkRunID(ctx context.Context, f runFlags, store memory.Store, stderr io.Writer) int {
	if f.runID == "" || f.resume != "" || f.replaceRun {
		return exitOK
	}
	err := refuseEarlierRun(ctx, f, store)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "cogloop run: %v\n", err)
	if errors.Is(err, memory.ErrLeaseHeld) {
		return exitFailure // as the run's own lease refuses it
	}
	return exitUsage
}

// runIdentity names the run and says how it is checkpointed: resumed,
// forked, in the store (resumable from another process), or in this
// process only. With hint, the console is told how to resume it; a fork's
// line (forkLine) waits until the fork has its checkpoint.
func runIdentity(f runFlags, store memory.Store, hint bool, stderr io.Writer) (runID string, opts []cogloop.RunOption, forkLine string) {
	runID = f.runID
	if runID == "" {
		runID = cogloop.NewRunID()
	}
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
	return runID, opts, forkLine
}

// runView is what the console shows of a run: the --trace file, and what
// the summary at its end reads.
type runView struct {
	tr     *trace // nil: no --trace
	limits loopLimits
	events records.Buffer // the summary's loops, as show reads them from the record
}

// newRunView opens --trace; a write error of the trace cancels the run.
func newRunView(f runFlags, stderr io.Writer, cancel context.CancelCauseFunc) (*runView, error) {
	v := &runView{}
	if f.trace != "" {
		tr, err := newTrace(f.trace, stderr, cancel)
		if err != nil {
			return nil, err
		}
		v.tr = tr
	}
	return v, nil
}

// observers are the console's observers of the run (con is stderr), and
// the run options they need; forkLine ("": none) is printed when the fork
// starts.
func (v *runView) observers(f runFlags, con *console, forkLine string) ([]event.Observer, []cogloop.RunOption) {
	var obs []event.Observer
	var opts []cogloop.RunOption
	if v.tr != nil {
		obs = append(obs, v.tr.Observe)
	}
	if forkLine != "" {
		obs = append(obs, func(e event.Event) {
			if e.Kind == event.RunStart && e.Node != "" {
				fmt.Fprintln(con, forkLine)
			}
		})
	}
	obs = append(obs, con.Observe, v.limits.Observe)
	if !f.quiet && !f.json {
		obs = append(obs, v.events.Observe)
	}
	if f.trace != "-" { // with --trace -, the warnings are trace lines on stderr already
		obs = append(obs, warningPrinter(con))
	}
	if f.verbose {
		obs = append(obs, newLivePrinter(con).Observe)
		opts = append(opts, cogloop.WithDeltas())
	}
	return obs, opts
}

// eventRoute sends each event of a run to the console's observers (others),
// the record's, and watch (nil: none). The others hear model.call only when
// keepCalls (OpenTelemetry asked for them); a replay's warning about an
// agent it does not answer goes to both.
type eventRoute struct {
	others, records event.Observer
	replay          *replaySource
	keepCalls       bool
	watch           event.Observer
}

func (r eventRoute) observe(e event.Event) {
	if r.replay != nil {
		if w, ok := r.replay.scriptedWarning(e); ok {
			r.others(w)
			r.records(w)
		}
	}
	if r.keepCalls || e.Kind != event.ModelCall {
		r.others(e)
	}
	r.records(e)
	if r.watch != nil {
		r.watch(e)
	}
}

// closeRun finishes the trace (nil: none) and the record. One that cannot
// be written fails the run: it becomes the run's error, printed last, or is
// printed now when the run failed already. It returns the run's error.
func closeRun(tr *trace, rec *recording, runID string, runErr error, stderr io.Writer) error {
	if errors.Is(runErr, cogloop.ErrWorkflowChanged) {
		runErr = fmt.Errorf("%w; the flag for that is --allow-config-change", runErr)
	}
	later := func(err error) {
		switch {
		case err == nil:
		case runErr == nil:
			runErr = err
		default:
			fmt.Fprintf(stderr, "cogloop: %v\n", err)
		}
	}
	if tr != nil {
		later(tr.Close())
	}
	later(rec.finish(runID, stderr))
	return runErr
}

// runOutcome is how a run ended: its result (nil: it never started), its
// error and exit code.
type runOutcome struct {
	res  *cogloop.Result
	err  error
	code int
}

// newOutcome is the outcome of a run that returned res and err: a run
// that stopped to wait or pause exits with exitWaiting and a note.
func newOutcome(res *cogloop.Result, err error) runOutcome {
	o := runOutcome{res: res, err: err, code: exitOK}
	if err != nil {
		o.code = exitFailure
	}
	if stopped(res) {
		o.code, o.err = exitWaiting, stopNote(err)
	}
	return o
}

// print writes the outcome: the answer (or --json document) on stdout, the
// summary and how to go on with a stopped run on stderr, and the failure
// last, where the eye lands (as go test ends with FAIL). It returns the
// exit code.
func (o runOutcome) print(ctx context.Context, stdout, stderr io.Writer, f runFlags, workflow string, v *runView) int {
	fail := func() {
		if o.err != nil {
			fmt.Fprintf(stderr, "cogloop: %v\n", o.err)
		}
	}
	if o.res == nil {
		fail()
		if f.fork != "" && ctx.Err() == nil {
			o.code = exitUsage // a refused fork: nothing ran
		}
		return exitCode(ctx, o.code)
	}
	if f.json {
		if err := writeJSON(stdout, o.res); err != nil {
			fmt.Fprintf(stderr, "cogloop: write output: %v\n", err)
			return exitFailure
		}
		fail()
		return exitCode(ctx, o.code)
	}
	if o.code == exitOK {
		fmt.Fprintln(stdout, o.res.Text())
	}
	if !f.quiet {
		writeSummary(stderr, o.res, &v.limits, v.events.Events())
	}
	if stopped(o.res) {
		writeStopped(stderr, o.res, f, workflow)
	}
	fail()
	return exitCode(ctx, o.code)
}
