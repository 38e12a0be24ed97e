package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/records"
)

const evalHelp = `usage: cogloop eval WORKFLOW.yaml --dataset FILE.jsonl [flags]

Runs the workflow once per dataset line and prints a table: runs, ok and
failed, expectations met, loops that met their threshold, mean and median
final score, passes per run, warnings, tokens, cost and the slowest runs. A dataset
line is one JSON object:
  {"input": "text or any JSON value", "expect": {"contains": "..."}}
expect is optional and takes exactly one of contains, equals (whitespace
around both trimmed) or regex (Python syntax, time-bounded). A progress bar
shows on stderr when it is a terminal. Ctrl-C cancels the runs in flight and
prints the table of the runs that finished.
Exit codes: 0 every run ok and every expectation met, 1 otherwise, 2 bad
usage, workflow or dataset, 130 after SIGINT, 143 after SIGTERM.

flags (before or after the arguments):
  --dataset F       the JSONL dataset (required; bad lines are errors naming the line)
  --concurrency N   runs at a time (default 4, at most 64)
  --out F           write one JSON line per run to F (input, status, answer, expectation,
                    scores, loops, tokens, cost, errors, warnings)
  --script F        answer every LLM call from the scripted replies in F; each run
                    replays them from the start
  --trace F         write every event of every run as one JSON line to F ('-': stderr)
  --strict          every warning (load or run time) is an error
  -q                no progress bar
  --redis URL       keep loop histories in Redis (default $REDIS_URL, else in memory)
  --namespace N     key namespace in the store (default "default")
  --presets DIR     add (or override) scoring presets from DIR
`

type evalFlags struct {
	dataset, out, script, trace, presets string
	concurrency                          int
	strict, quiet                        bool
	store                                storeFlags
}

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f evalFlags
	fs := newFlagSet("eval", stderr)
	fs.StringVar(&f.dataset, "dataset", "", "")
	fs.IntVar(&f.concurrency, "concurrency", 4, "")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.script, "script", "", "")
	fs.StringVar(&f.trace, "trace", "", "")
	fs.StringVar(&f.presets, "presets", "", "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.BoolVar(&f.quiet, "q", false, "")
	fs.StringVar(&f.store.redisURL, "redis", "", "")
	fs.StringVar(&f.store.namespace, "namespace", "", "")
	usageErr := func(err error) int { return usageError(stderr, "eval", err) }
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return usageErr(err)
	case len(pos) != 1:
		return usageErr(fmt.Errorf("eval takes one workflow file, got %d arguments", len(pos)))
	case f.dataset == "":
		return usageErr(errors.New("eval needs --dataset FILE.jsonl"))
	case f.concurrency < 1 || f.concurrency > 64:
		return usageErr(fmt.Errorf("--concurrency must be between 1 and 64, not %d", f.concurrency))
	}
	wf, err := cogloop.Load(pos[0], loadOptions(f.presets, f.strict)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	data, err := readFileCapped(f.dataset, "--dataset", maxDatasetBytes, "split the dataset")
	if err != nil {
		return usageErr(err)
	}
	cases, err := parseDataset(data, f.dataset)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
		return exitUsage
	}
	var scriptData []byte
	if f.script != "" {
		if _, err := readScript(f.script, wf); err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %s\n", strings.TrimPrefix(err.Error(), errBadScript.Error()+": "))
			return exitUsage
		}
		if scriptData, err = readFileCapped(f.script, "--script", maxScriptBytes, ""); err != nil {
			return usageErr(err)
		}
	}
	var out *jsonLines
	if f.out != "" {
		if out, err = createJSONLines(f.out); err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
			return exitFailure
		}
	}
	store, err := f.store.open(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
		return exitFailure
	}
	if store != nil {
		defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	}
	var tr *trace
	if f.trace != "" {
		if tr, err = newTrace(f.trace, stderr, nil); err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
			return exitFailure
		}
	}

	bar := newEvalBar(stderr, len(cases), isTerminal(stderr) && !f.quiet && f.trace != "-")
	ev := evaluator{wf: wf, script: scriptData, scriptName: f.script, trace: tr, bar: bar, out: out}
	if store != nil {
		ev.opts = append(ev.opts, cogloop.WithMemory(store))
	}
	results := ev.runAll(ctx, cases, f.concurrency)
	bar.done()

	code := exitOK
	closeErr := func(err error) {
		if err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
			code = exitFailure
		}
	}
	if out != nil {
		closeErr(out.Close())
	}
	if tr != nil {
		closeErr(tr.Close())
	}
	s := summarize(results)
	writeEvalTable(stdout, s)
	if !s.passed() {
		code = exitFailure
	}
	return exitCode(ctx, code)
}

// evaluator runs the dataset's cases.
type evaluator struct {
	wf         *cogloop.Workflow
	opts       []cogloop.RunOption
	script     []byte
	scriptName string
	trace      *trace
	bar        *evalBar
	out        *jsonLines
}

// runAll runs every case, at most n at a time, until ctx is done: a case not
// started by then is left out; a run in flight is canceled and reported so.
func (ev *evaluator) runAll(ctx context.Context, cases []caseLine, n int) []evalResult {
	results := make([]evalResult, len(cases))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, c := range cases {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			for j := i; j < len(cases); j++ {
				results[j] = evalResult{Line: cases[j].Line, Input: cases[j].Input, Status: statusNotStarted}
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := ev.runOne(ctx, c)
			results[i] = r
			ev.bar.add(r)
			if ev.out != nil {
				ev.out.write(r)
			}
		}()
	}
	wg.Wait()
	return results
}

func (ev *evaluator) runOne(ctx context.Context, c caseLine) (r evalResult) {
	r = evalResult{Line: c.Line, Input: c.Input, Errors: []cogloop.RunError{}}
	opts := append([]cogloop.RunOption(nil), ev.opts...)
	if ev.script != nil {
		script, err := scripted.Parse(ev.script, ev.scriptName) // a fresh copy: each run replays it
		if err != nil {
			r.Status, r.Error = cogloop.StatusFailed, err.Error()
			return r
		}
		opts = append(opts, cogloop.WithModels(script))
	}
	if ev.trace != nil {
		opts = append(opts, cogloop.WithObserver(ev.trace.Observe))
	}
	start := time.Now()
	res, err := ev.wf.Run(ctx, c.Input, opts...)
	r.duration = time.Since(start)
	r.DurationMS = r.duration.Milliseconds()
	if err != nil {
		r.Error = err.Error()
	}
	if ctx.Err() != nil {
		r.Status = statusCanceled
		return r
	}
	if res == nil {
		r.Status = cogloop.StatusFailed
		return r
	}
	r.fill(res)
	if c.Expect != nil {
		r.Expect = checkExpectation(c.Expect, r.Answer)
	}
	return r
}

func checkExpectation(e *expectation, answer string) *expectResult {
	er := &expectResult{}
	switch {
	case e.Contains != nil:
		er.Kind, er.Value = "contains", *e.Contains
	case e.Equals != nil:
		er.Kind, er.Value = "equals", *e.Equals
	default:
		er.Kind, er.Value = "regex", *e.Regex
	}
	met, err := e.check(answer)
	er.Met = met && err == nil
	if err != nil {
		er.Error = err.Error()
	}
	return er
}

// jsonLines writes one JSON line per value, safe for concurrent use; the
// first error is kept for Close.
type jsonLines struct {
	mu   sync.Mutex
	f    *os.File
	name string
	err  error
}

func createJSONLines(path string) (*jsonLines, error) {
	f, err := records.CreatePrivate(path)
	if err != nil {
		return nil, fmt.Errorf("create --out: %w", err)
	}
	return &jsonLines{f: f, name: path}, nil
}

func (j *jsonLines) write(v any) {
	b, err := json.Marshal(v)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if err == nil {
		_, err = j.f.Write(append(b, '\n'))
	}
	if err != nil {
		j.err = fmt.Errorf("write %s: %w", j.name, err)
	}
}

func (j *jsonLines) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.f.Close(); err != nil && j.err == nil {
		j.err = fmt.Errorf("close %s: %w", j.name, err)
	}
	return j.err
}
