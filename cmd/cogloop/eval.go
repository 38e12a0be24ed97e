package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/memory"
)

type evalFlags struct {
	dataset, out, script, trace, presets, junit, report, replay string
	concurrency, repeat                                         int
	passRate                                                    float64
	strict, quiet                                               bool
	store                                                       storeFlags
}

// define defines eval's flags on fs.
func (f *evalFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.dataset, "dataset", "", "")
	fs.IntVar(&f.concurrency, "concurrency", 4, "")
	fs.IntVar(&f.repeat, "repeat", 1, "")
	fs.Float64Var(&f.passRate, "pass-rate", 1, "")
	fs.StringVar(&f.out, "out", "", "")
	fs.StringVar(&f.junit, "junit", "", "")
	fs.StringVar(&f.report, "report", "", "")
	fs.StringVar(&f.script, "script", "", "")
	fs.StringVar(&f.replay, "replay", "", "")
	fs.StringVar(&f.trace, "trace", "", "")
	fs.StringVar(&f.presets, "presets", "", "")
	fs.BoolVar(&f.strict, "strict", false, "")
	fs.BoolVar(&f.quiet, "q", false, "")
	fs.StringVar(&f.store.redisURL, "redis", "", "")
	fs.StringVar(&f.store.namespace, "namespace", "", "")
}

// check refuses eval's arguments pos (the workflow files) and flags when
// they are out of range or contradict each other.
func (f evalFlags) check(pos []string) error {
	switch {
	case len(pos) != 1 && len(pos) != 2:
		return fmt.Errorf("eval takes one workflow file (or two to compare), got %d arguments", len(pos))
	case f.dataset == "":
		return errors.New("eval needs --dataset FILE.jsonl")
	case f.concurrency < 1 || f.concurrency > 64:
		return fmt.Errorf("--concurrency must be between 1 and 64, not %d", f.concurrency)
	case f.repeat < 1 || f.repeat > 1000:
		return fmt.Errorf("--repeat must be between 1 and 1000, not %d", f.repeat)
	case !(f.passRate >= 0 && f.passRate <= 1):
		return fmt.Errorf("--pass-rate must be between 0 and 1 (0.8 = 80%% of runs pass), not %v", f.passRate)
	case f.script != "" && f.replay != "":
		return errors.New("--script and --replay both answer the model calls: give one")
	case len(pos) == 2 && (f.junit != "" || f.report != ""):
		return errors.New("--junit and --report describe one workflow: compare runs without them")
	}
	return nil
}

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f evalFlags
	fs := newFlagSet("eval", stderr)
	f.define(fs)
	usageErr := func(err error) int { return usageError(stderr, "eval", err) }
	pos, err := parseInterspersed(fs, args)
	if err == nil {
		err = f.check(pos)
	}
	if err != nil {
		return usageErr(err)
	}
	data, err := readFileCapped(f.dataset, "--dataset", maxDatasetBytes, "split the dataset")
	if err != nil {
		return usageErr(err)
	}
	cases, err := parseDataset(data, f.dataset)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
		return exitUsage
	}
	var evs []*evaluator
	for _, path := range pos {
		ev, code := newEvaluator(path, cases, f, stderr)
		if ev == nil {
			return code
		}
		evs = append(evs, ev)
	}
	sinks, err := f.openSinks(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
		return exitFailure
	}
	if sinks.store != nil {
		defer func() { _ = sinks.store.Close() }() // writes are synchronous; Close only releases the connection
	}
	out, tr, store := sinks.out, sinks.tr, sinks.store

	bar := newEvalBar(stderr, len(cases)*f.repeat*len(evs), isTerminal(stderr) && !f.quiet && f.trace != "-")
	var all [][]evalResult
	for _, ev := range evs {
		ev.trace, ev.bar, ev.out, ev.stderr = tr, bar, out, stderr
		if store != nil {
			ev.opts = append(ev.opts, cogloop.WithMemory(store))
		}
		if len(evs) > 1 {
			ev.label = ev.path
		}
		ev.keepEvents = f.report != ""
		all = append(all, ev.runAll(ctx, cases, f.repeat, f.concurrency))
	}
	bar.done()
	return exitCode(ctx, f.finish(stdout, stderr, pos, out, tr, all))
}

// evalSinks are where eval's runs go besides the table: the --out lines,
// the --trace file and the --redis store (each nil when not asked for).
type evalSinks struct {
	out   *jsonLines
	tr    *trace
	store memory.Store
}

// openSinks opens the sinks the flags ask for.
func (f evalFlags) openSinks(ctx context.Context, stderr io.Writer) (evalSinks, error) {
	var s evalSinks
	var err error
	if f.out != "" {
		if s.out, err = createJSONLines(f.out); err != nil {
			return s, err
		}
	}
	if s.store, err = f.store.openRedis(ctx, stderr); err != nil {
		return s, err
	}
	if f.trace != "" {
		if s.tr, err = newTrace(f.trace, stderr, nil); err != nil {
			if s.store != nil {
				_ = s.store.Close()
			}
			return s, err
		}
	}
	return s, nil
}

// finish closes --out and --trace (nil: not asked for) and writes the
// results of the runs of each workflow in pos (all, in the same order):
// the table (or the comparison of two), --junit and --report. It returns
// the exit code: a failure when a file could not be written or a workflow
// did not pass.
func (f evalFlags) finish(stdout, stderr io.Writer, pos []string, out *jsonLines, tr *trace, all [][]evalResult) int {
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
	var sums []evalSummary
	for _, results := range all {
		sums = append(sums, summarize(results, f.passRate))
	}
	if len(sums) == 2 {
		writeCompareTable(stdout, pos, sums, all)
	} else {
		writeEvalTable(stdout, sums[0])
		if f.junit != "" {
			closeErr(writeJUnit(f.junit, pos[0], all[0]))
		}
		if f.report != "" {
			closeErr(writeEvalReport(f.report, pos[0], f.dataset, sums[0], all[0]))
		}
	}
	for _, s := range sums {
		if !s.passed() {
			code = exitFailure
		}
	}
	return code
}

// newEvaluator loads one workflow and what answers its calls; nil and an
// exit code when something is wrong (already reported on stderr).
func newEvaluator(path string, cases []caseLine, f evalFlags, stderr io.Writer) (*evaluator, int) {
	lo := loadOptions(f.presets, f.strict)
	wf, err := cogloop.Load(path, lo...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	ev := &evaluator{wf: wf, path: path, judges: map[string]*cogloop.Workflow{}}
	var extra, judgeIDs []string
	for _, c := range cases {
		for _, a := range c.Asserts {
			if a.judge == nil || ev.judges[a.judge.key()] != nil {
				continue
			}
			jw, err := judgeWorkflow(a.judge, path, lo)
			if err != nil {
				fmt.Fprintf(stderr, "cogloop eval: line %d: %v\n", c.Line, err)
				return nil, exitUsage
			}
			ev.judges[a.judge.key()] = jw
			judgeIDs = append(judgeIDs, fmt.Sprintf("%q", a.judge.id()))
			if a.judge.Agent == "" {
				extra = append(extra, defaultJudgeID)
			}
		}
	}
	if f.script != "" {
		if _, err := readScript(f.script, wf, extra...); err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %s\n", strings.TrimPrefix(err.Error(), errBadScript.Error()+": "))
			return nil, exitUsage
		}
		if ev.script, err = readFileCapped(f.script, "--script", maxScriptBytes, ""); err != nil {
			return nil, usageError(stderr, "eval", err)
		}
		ev.scriptName = f.script
	}
	if f.replay != "" && len(ev.judges) > 0 {
		// A run's record holds the workflow's model calls, not a judge's.
		fmt.Fprintf(stderr, "cogloop eval: --replay cannot answer llm-rubric judges: a recorded run holds the workflow's model calls, not the judge's; "+
			"judge offline with --script (cogloop script RUN, plus replies for %s), or live without --replay\n", strings.Join(judgeIDs, ", "))
		return nil, exitUsage
	}
	if f.replay != "" {
		if ev.replay, err = loadReplay(f.replay); err != nil {
			fmt.Fprintf(stderr, "cogloop eval: %v\n", err)
			return nil, exitUsage
		}
	}
	return ev, exitOK
}

// evaluator runs the dataset's cases through one workflow.
type evaluator struct {
	wf         *cogloop.Workflow
	path       string
	label      string // the workflow in --out and reasons when comparing
	judges     map[string]*cogloop.Workflow
	opts       []cogloop.RunOption
	script     []byte
	scriptName string
	replay     *replayLog
	trace      *trace
	bar        *evalBar
	out        *jsonLines
	stderr     io.Writer
	keepEvents bool // for --report's run pages
	errMu      sync.Mutex
}

// runAll runs every case repeat times, at most n at a time, until ctx is
// done: a run not started by then is left out; a run in flight is canceled
// and reported so. Results are in case order, repeats together.
func (ev *evaluator) runAll(ctx context.Context, cases []caseLine, repeat, n int) []evalResult {
	results := make([]evalResult, len(cases)*repeat)
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i := range results {
		c, rep := cases[i/repeat], i%repeat+1
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			for j := i; j < len(results); j++ {
				results[j] = evalResult{Line: cases[j/repeat].Line, Repeat: j%repeat + 1, Input: cases[j/repeat].Input, Status: statusNotStarted}
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := ev.runOne(ctx, c)
			r.Repeat, r.Workflow = rep, ev.label
			results[i] = r
			ev.bar.add(r)
			ev.explain(r, repeat > 1)
			if ev.out != nil {
				ev.out.write(r)
			}
		}()
	}
	wg.Wait()
	return results
}

// explain prints why a finished run did not pass, on stderr.
func (ev *evaluator) explain(r evalResult, repeated bool) {
	if r.Status == statusCanceled || r.Pass {
		return
	}
	where := fmt.Sprintf("line %d", r.Line)
	if repeated {
		where += fmt.Sprintf(" (repeat %d)", r.Repeat)
	}
	if ev.label != "" {
		where = ev.label + " " + where
	}
	ev.errMu.Lock()
	defer ev.errMu.Unlock()
	for _, reason := range r.Failures {
		fmt.Fprintf(ev.stderr, "FAIL %s: %s\n", where, reason)
	}
}

// models is what answers a run's model calls: a fresh copy of the script (each
// run replays it from the start), the replay, or nil (the workflow's own).
func (ev *evaluator) models() (agents.ModelSource, error) {
	switch {
	case ev.script != nil:
		return scripted.Parse(ev.script, ev.scriptName)
	case ev.replay != nil:
		return ev.replay.source(), nil
	}
	return nil, nil
}

func (ev *evaluator) runOne(ctx context.Context, c caseLine) (r evalResult) {
	r = evalResult{Line: c.Line, Name: c.Name, Input: c.Input, Errors: []cogloop.RunError{}}
	opts := append([]cogloop.RunOption(nil), ev.opts...)
	models, err := ev.models()
	if err != nil {
		r.Status, r.Error = cogloop.StatusFailed, err.Error()
		r.Failures = []string{err.Error()}
		return r
	}
	if models != nil {
		opts = append(opts, cogloop.WithModels(models))
	}
	var obs []event.Observer
	if ev.trace != nil {
		obs = append(obs, ev.trace.Observe)
	}
	var buf *records.Buffer
	if ev.keepEvents {
		buf = &records.Buffer{}
		obs = append(obs, buf.Observe)
	}
	if len(obs) > 0 {
		opts = append(opts, cogloop.WithObserver(fanOut(obs)))
	}
	start := time.Now()
	res, err := ev.wf.Run(ctx, c.Input, opts...)
	r.duration = time.Since(start)
	r.DurationMS = r.duration.Milliseconds()
	if err != nil {
		r.Error = err.Error()
	}
	if buf != nil {
		r.events = buf.Events()
	}
	if ctx.Err() != nil {
		r.Status = statusCanceled
		return r
	}
	if res != nil {
		r.fill(res)
	} else {
		r.Status = cogloop.StatusFailed
	}
	if r.Status != cogloop.StatusOK {
		r.Failures = append(r.Failures, "the run failed: "+firstLines(orText(r.Error, runErrorsText(r.Errors)), 3))
	}
	ev.assert(ctx, c, models, &r)
	return r
}

// assert checks case c's assertions on its run r (models: what answered
// the run's model calls, for the judges), and says whether r passed.
func (ev *evaluator) assert(ctx context.Context, c caseLine, models agents.ModelSource, r *evalResult) {
	facts := runFacts{answer: r.Answer, passes: r.Passes, finalScore: r.FinalScore, tokens: r.Tokens, cost: r.Cost, latency: r.duration}
	if n := len(r.Loops); n > 0 {
		facts.stopReason = r.Loops[n-1].StopReason
	}
	for _, a := range c.Asserts {
		var ar assertResult
		switch {
		case a.judge != nil && r.Status != cogloop.StatusOK:
			ar = assertResult{Kind: a.Kind, Value: a.Value, Reason: "not judged: the run failed"}
		case a.judge != nil:
			ar = a.judgeRun(ctx, ev.judges[a.judge.key()], models, r.Answer)
			r.JudgeTokens += ar.Tokens
			r.JudgeCost += ar.Cost
		default:
			ar = a.check(facts)
		}
		r.Assertions = append(r.Assertions, ar)
		if !ar.Pass {
			r.Failures = append(r.Failures, ar.Kind+": "+ar.Reason)
		}
	}
	r.Pass = len(r.Failures) == 0
}

func runErrorsText(errs []cogloop.RunError) string {
	var parts []string
	for _, e := range errs {
		parts = append(parts, e.Error())
	}
	return orText(strings.Join(parts, "; "), "no answer")
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
