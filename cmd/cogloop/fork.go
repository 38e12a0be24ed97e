package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
)

// cmdFork starts a new run from pass K of a checkpointed run: run's flags,
// plus --pass and --input; the workflow file and the input default to the
// parent's.
func cmdFork(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return forkCommand(ctx, args, stdout, stderr, nil)
}

// forkCommand is cmdFork whose run's events watch hears too (serve's forks).
func forkCommand(ctx context.Context, args []string, stdout, stderr io.Writer, watch event.Observer) int {
	var f runFlags
	fs := newFlagSet("fork", stderr)
	f.define(fs)
	var input string
	var inputSet bool
	fs.Func("input", "", func(s string) error { input, inputSet = s, true; return nil })
	fs.StringVar(&f.pass, "pass", "", "")
	usageErr := func(err error) int { return usageError(stderr, "fork", err) }
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		err = f.checkFork(pos, inputSet)
	}
	if err != nil {
		return usageErr(err)
	}
	f.fork = parentID(pos[0], f.recordDir)
	f.store.recordDir = f.recordDir
	wfFile, origin, code := forkOrigin(ctx, f, stderr)
	if code != exitOK {
		return code
	}
	run := []string{wfFile}
	if len(pos) == 2 {
		run[0] = pos[1]
	} else if wfFile == "" {
		return usageErr(fmt.Errorf("run %s was not started from a workflow file: give WORKFLOW.yaml", f.fork))
	}
	switch {
	case inputSet:
		run = append(run, input)
	case f.inputFile != "":
	default:
		text, err := originText(&f, origin)
		if err != nil {
			return usageErr(err)
		}
		run = append(run, text)
	}
	return runParsed(ctx, f, run, stdout, stderr, watch)
}

// checkFork refuses fork's arguments pos and flags that do not make a fork;
// inputSet says --input was given.
func (f runFlags) checkFork(pos []string, inputSet bool) error {
	switch {
	case len(pos) == 0:
		return errors.New("fork needs the run to fork: cogloop fork RUN --pass K [WORKFLOW.yaml]")
	case len(pos) > 2:
		return fmt.Errorf("fork takes a run and a workflow file, got %d arguments (give the input with --input)", len(pos))
	case f.pass == "":
		return errors.New("fork needs --pass K: the pass to run from (3, improve:3, outer:2/inner:3)")
	case f.resume != "":
		return errors.New("--resume continues a run; fork starts a new one: leave out --resume")
	case f.replaceRun:
		return errors.New("--replace-run does not apply to a fork, a new run")
	case inputSet && f.inputFile != "":
		return errors.New("give the input with --input or --input-file, not both")
	case f.verbose && f.quiet:
		return errors.New("-v and -q contradict each other; pick one")
	}
	if err := f.checkExclusive(); err != nil {
		return err
	}
	if f.checkpointTTL <= 0 || f.keepFinished <= 0 {
		return errors.New("--checkpoint-ttl and --keep-finished must be positive")
	}
	return nil
}

// forkOrigin reads the workflow file and the input of the parent run
// f.fork from its checkpoint store; code is exitOK, or the exit code after
// the error was printed.
func forkOrigin(ctx context.Context, f runFlags, stderr io.Writer) (wfFile string, origin any, code int) {
	store, err := f.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop fork: %v\n", err)
		return "", nil, exitFailure
	}
	if store == nil {
		return "", nil, usageError(stderr, "fork", fmt.Errorf("no checkpoint store: %s cannot be used; give --record-dir or --redis URL", f.store.checkpointDir()))
	}
	wfFile, origin, err = cogloop.ForkOrigin(ctx, store, f.fork)
	_ = store.Close() // the run opens its own
	if err != nil {
		fmt.Fprintf(stderr, "cogloop fork: %v\n", err)
		return "", nil, exitUsage
	}
	return wfFile, origin, exitOK
}

// originText is the parent run's input origin as the fork's input
// argument: a text as it is, anything else (or any input under
// --json-input) as JSON, which sets f.jsonInput.
func originText(f *runFlags, origin any) (string, error) {
	if origin == nil {
		return "", nil
	}
	text, ok := origin.(string)
	if !ok || f.jsonInput {
		data, err := json.Marshal(origin)
		if err != nil {
			return "", fmt.Errorf("the input of run %s: %w; give --input", f.fork, err)
		}
		text, f.jsonInput = string(data), true
	}
	return text, nil
}

// parentID is the run id RUN names: a record's id (a unique prefix, 'latest'
// or a record file, as for show) when one matches, else RUN itself.
func parentID(name, dirFlag string) string {
	d, err := recordDir(dirFlag)
	if err != nil {
		return name
	}
	path, err := d.Find(name)
	if err != nil {
		return name
	}
	return strings.TrimSuffix(filepath.Base(path), records.Ext)
}

const helpFork = `usage: cogloop fork RUN --pass K [WORKFLOW.yaml] [flags]

Starts a new run that keeps passes 1…K−1 of run RUN (their outputs, scores,
lessons and spend) and runs from pass K on, with WORKFLOW.yaml (default: the
file RUN loaded) and RUN's input (or --input). Prompts, models and
conditions may change; a changed loop structure (a loop's agents, its
nesting) is refused naming what changed. The new run records where it came
from (forked_from in its record, 'cogloop show' and the report) and is
checkpointed like any run, so it can be resumed and forked in turn. RUN is a
run id, a unique prefix of a recorded one, or 'latest'; its checkpoint must
still be there (kept 24h after an ok run, see run --keep-finished).

flags (and every flag of 'cogloop run'):
  --pass K          the pass to run from: 3 (the run's only top-level loop),
                    improve:3 (loop improve), outer:2/inner:3 (pass 3 of loop inner
                    in pass 2 of loop outer)
  --input TEXT      run on TEXT instead of RUN's input (with --json-input: JSON);
                    the kept passes stay as they were, the passes from K on see TEXT
  --run-id ID       the new run's id (default: a fresh one)
  --redis URL       the store RUN was checkpointed in (default $REDIS_URL, else the
                    checkpoint files in <record dir>/checkpoints)
`
