package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/compose"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
)

// Instruction counts: -callgrind runs each workload in a child process of this
// binary under valgrind --tool=callgrind, twice, at two repetition counts, and
// reports (instructions of the long run − instructions of the short run) /
// (units of the long run − units of the short run). The difference cancels
// everything a run pays once (process start-up, parsing the workflow, the
// first run's lazy initialisation), so the figure is the marginal cost of one
// unit, garbage collection included, and it does not depend on the machine's
// load or clock. The ratios (cogloop / eino) come from counts taken in the
// same bench run.

// cgWorkload is one workload a child process can run: setup parses what it
// needs, and the function it returns does some units of work.
type cgWorkload struct {
	name  string
	setup func() (func() (units int, err error), error)
}

// cgWorkloads are the workloads -callgrind measures, by name.
func cgWorkloads() []cgWorkload {
	const loops = 10
	// wfRun runs a workflow; one run is units units, and check asks for
	// loops iterations of loopID ("" for a workflow without loops).
	wfRun := func(src []byte, name string, units int, loopID string, loops int) func() (func() (int, error), error) {
		return func() (func() (int, error), error) {
			wf, err := parse(src, name)
			if err != nil {
				return nil, err
			}
			m := newModels(0)
			return func() (int, error) {
				res, err := wf.Run(ctx, task, cogloop.WithModels(m))
				return units, check(res, err, loopID, loops)
			}, nil
		}
	}
	loopRun := func(src []byte, name, loopID string) func() (func() (int, error), error) {
		return wfRun(src, name, loops, loopID, loops)
	}
	einoRun := func(build func(agents.ModelSource, int) (compose.Runnable[string, string], error)) func() (func() (int, error), error) {
		return func() (func() (int, error), error) {
			g, err := build(newModels(0), loops)
			if err != nil {
				return nil, err
			}
			return func() (int, error) { _, err := g.Invoke(ctx, task); return loops, err }, nil
		}
	}
	// seqRun runs a workflow without loops; one run is units units.
	seqRun := func(src []byte, name string, units int) func() (func() (int, error), error) {
		return wfRun(src, name, units, "", 0)
	}
	return []cgWorkload{
		{"step", seqRun(sequentialWorkflow(modelSpec{}), "steps.yaml", 3)},
		{"loop", loopRun(loopWorkflow(loops, false, modelSpec{}), "loop.yaml", "improvement_loop")},
		{"2node-cogloop", loopRun(twoNodeLoop(loops), "two.yaml", "loop")},
		{"2node-eino", einoRun(einoTwoNode)},
		{"forkjoin-cogloop", loopRun(forkJoinLoop(loops), "forkjoin.yaml", "loop")},
		{"forkjoin-eino", einoRun(einoForkJoin)},
		{"chain3", seqRun(chainWorkflow(3), "chain.yaml", 1)},
		{"chain10", seqRun(chainWorkflow(10), "chain.yaml", 1)},
		{"chain30", seqRun(chainWorkflow(30), "chain.yaml", 1)},
		{"tool0", toolRun(false)},
		{"tool1", toolRun(true)},
		{"histchain3", wfRun(historyChainLoop(3), "histchain.yaml", histChainPasses, "loop", histChainPasses)},
		{"histchain10", wfRun(historyChainLoop(10), "histchain.yaml", histChainPasses, "loop", histChainPasses)},
		{"histchain30", wfRun(historyChainLoop(30), "histchain.yaml", histChainPasses, "loop", histChainPasses)},
		{"histchain100", wfRun(historyChainLoop(100), "histchain.yaml", histChainPasses, "loop", histChainPasses)},
		{"history1000", historyRun(1000, false)},
		{"history1000-redis", historyRun(1000, true)},
		{"realcall", realCallRun(false)},
		{"realcall-stream", realCallRun(true)},
	}
}

// cgOpenAIEnv carries the base URL of the loopback OpenAI-compatible server
// the -callgrind parent started for the realcall workloads (a process started
// under callgrind trips its signal handling).
const cgOpenAIEnv = "COGLOOP_BENCH_OPENAI_URL"

// realCallRun runs the realistic scenario's workflow (5 passes × 3 agents)
// once against the loopback OpenAI-compatible server (the parent's child,
// which callgrind does not measure; it replies at once), with or without
// streaming and deltas: one unit is one model call, all of its client side
// (the framework, langchaingo's client, net/http).
func realCallRun(stream bool) func() (func() (int, error), error) {
	return func() (func() (int, error), error) {
		url := os.Getenv(cgOpenAIEnv)
		if url == "" {
			return nil, errors.New(cgOpenAIEnv + " is not set: run the realcall workloads through -callgrind")
		}
		wf, err := parse(loopWorkflow(5, false, modelSpec{url: url}), "loop-real.yaml")
		if err != nil {
			return nil, err
		}
		var opts []cogloop.RunOption
		if stream {
			opts = append(opts, cogloop.WithDeltas(), cogloop.WithObserver(func(event.Event) {}))
		}
		return func() (int, error) {
			res, err := wf.Run(ctx, task, opts...)
			return realCalls, check(res, err, "improvement_loop", 5)
		}, nil
	}
}

// toolRun runs toolWorkflow: one agent call a run, with or without one tool
// round; tool1 − tool0 is the framework's cost of a tool round (the second
// model call, the argument check, the tool's step, the messages).
func toolRun(tool bool) func() (func() (int, error), error) {
	return func() (func() (int, error), error) {
		wf, err := parse(toolWorkflow(tool), "tools.yaml")
		if err != nil {
			return nil, err
		}
		m := newModels(0)
		m.byID["asker"] = askerModel(tool)
		return func() (int, error) {
			res, err := wf.Run(ctx, task, cogloop.WithModels(m))
			return 1, check(res, err, "", 0)
		}, nil
	}
}

// cgOnly, when set, is a regexp of the workloads -callgrind measures.
var cgOnly string

// callgrindChild runs workload name n times and exits: the process that
// valgrind measures.
func callgrindChild(name string, n int) int {
	for _, w := range cgWorkloads() {
		if w.name != name {
			continue
		}
		fn, err := w.setup()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		for range n {
			if _, err := fn(); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", name+":", err)
				return 1
			}
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "bench: no workload %q\n", name)
	return 2
}

// childGODEBUG is added to the GODEBUG of the process callgrind measures.
// Callgrind asserts on the signals Go's asynchronous preemption sends
// (threads.c: sigNum == current_state.sig); cooperative preemption leaves the
// work the same. Valgrind 3.19 cannot run RDTSCP, which Go 1.26's runtime
// uses where the CPU has it (the child dies with SIGILL on some hosts):
// cpu.rdtscp=off makes the runtime use RDTSC instead.
const childGODEBUG = "asyncpreemptoff=1,cpu.rdtscp=off"

// childEnv is the environment of the process callgrind measures: env with
// childGODEBUG after any GODEBUG of the caller's, one P and, without gc, no
// collector.
func childEnv(env []string, gc bool) []string {
	debug := childGODEBUG
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				debug = v + "," + childGODEBUG
			}
			continue
		}
		out = append(out, kv)
	}
	// Valgrind runs one thread at a time, so the scheduler's spinning
	// threads would be counted as work (runs of the same workload differed
	// 20-fold with GOMAXPROCS=2): one P counts the work itself.
	out = append(out, "GODEBUG="+debug, "GOMAXPROCS=1")
	if !gc {
		// The collector's share moves by ±10% between identical runs (when a
		// cycle falls); without it the counts repeat to 0.1%.
		out = append(out, "GOGC=off")
	}
	return out
}

// instructions runs args under callgrind and returns the instructions the
// whole process executed (every thread, the runtime and the GC).
func instructions(dir string, gc bool, args ...string) (int64, error) {
	out := filepath.Join(dir, "callgrind.out")
	defer func() { _ = os.Remove(out) }()
	cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + out}, args...)...)
	cmd.Env = childEnv(os.Environ(), gc)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("valgrind %s: %w: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return callgrindTotal(out)
}

// callgrindTotal reads the event total ("summary:" or "totals:") of a
// callgrind output file; the first event is Ir, instructions executed.
func callgrindTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"summary:", "totals:"} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				fields := strings.Fields(rest)
				if len(fields) == 0 {
					continue
				}
				return strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no summary line", path)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// marginal is the instructions per unit of workload name: two runs of this
// binary under callgrind, at lo and hi repetitions.
func marginal(dir, self, name string, lo, hi, unitsPerRep int, gc bool) (float64, error) {
	lo, hi = max(1, lo/unitsPerRep), max(2, hi/unitsPerRep)
	a, err := instructions(dir, gc, self, "-callgrind-child", name, "-n", strconv.Itoa(lo))
	if err != nil {
		return 0, err
	}
	b, err := instructions(dir, gc, self, "-callgrind-child", name, "-n", strconv.Itoa(hi))
	if err != nil {
		return 0, err
	}
	return float64(b-a) / float64((hi-lo)*unitsPerRep), nil
}

// scenarioCallgrind reports instruction counts per unit for every workload,
// the cogloop / eino ratios, and the instructions of a `cogloop validate`
// process on the 200-agent workflow.
func scenarioCallgrind(rep *report, cfg config) error {
	const g = "instructions (callgrind)"
	if _, err := exec.LookPath("valgrind"); err != nil {
		r := rep.add(&row{group: g, name: "instructions per unit", unit: "k instr"})
		r.skipped = "valgrind is not on PATH"
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cogloop-callgrind-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	lo, hi := 50, 250 // units (agent steps, iterations) of the short and the long run
	if cfg.quick {
		lo, hi = 20, 80
	}
	type spec struct {
		workload, name string
		units          int
	}
	rows := []spec{
		{"step", "per agent step (3 sequential agents)", 3},
		{"loop", "per loop iteration (3 agents + score + lessons)", 10},
		{"2node-cogloop", "per iteration, 2-node loop, cogloop", 10},
		{"2node-eino", "per iteration, 2-node loop, eino", 10},
		{"forkjoin-cogloop", "per iteration, fork/join loop, cogloop", 10},
		{"forkjoin-eino", "per iteration, fork/join loop, eino", 10},
		{"chain3", "per pass of 3 chained agents", 1},
		{"chain10", "per pass of 10 chained agents", 1},
		{"chain30", "per pass of 30 chained agents", 1},
		{"tool0", "per run of one agent call, no tools", 1},
		{"tool1", "per run of one agent call with one tool round", 1},
		{"histchain3", "per loop pass of 3 chained agents + a scorer, prompts calling has_past_loops()/get_past_loops()", histChainPasses},
		{"histchain10", "the same, 10 chained agents", histChainPasses},
		{"histchain30", "the same, 30 chained agents", histChainPasses},
		{"histchain100", "the same, 100 chained agents", histChainPasses},
		{"history1000", "per stored entry, a 1-pass run over 1,000 persisted entries, in memory", 1000},
		{"history1000-redis", "per stored entry, the same on redis-server (loopback)", 1000},
		{"realcall", "per model call of the realistic scenario's run (loopback OpenAI HTTP, client side)", realCalls},
		{"realcall-stream", "the same, streaming with deltas", realCalls},
	}
	only := func(string) bool { return true }
	if cgOnly != "" {
		re, err := regexp.Compile(cgOnly)
		if err != nil {
			return fmt.Errorf("-workloads: %w", err)
		}
		only = re.MatchString
	}
	got := map[string]float64{}
	for _, s := range rows {
		if !only(s.workload) {
			continue
		}
		r := rep.add(&row{group: g, name: s.name + ", GC off", unit: "k instr", digits: 1})
		rgc := rep.add(&row{group: g, name: "  the same, GC on", unit: "k instr", digits: 1})
		if strings.HasSuffix(s.workload, "-redis") && os.Getenv(cgRedisEnv) == "" {
			srv, stop, skip, err := startRedis()
			if err != nil {
				return err
			}
			if skip != "" {
				r.skipped, rgc.skipped = skip, skip
				continue
			}
			defer stop()
			if err := os.Setenv(cgRedisEnv, srv.URL()); err != nil {
				return err
			}
		}
		if strings.HasPrefix(s.workload, "realcall") && os.Getenv(cgOpenAIEnv) == "" {
			srv, err := startOpenAIServer()
			if err != nil {
				return err
			}
			defer srv.Close()
			if err := os.Setenv(cgOpenAIEnv, srv.URL); err != nil {
				return err
			}
		}
		v, err := marginal(dir, self, s.workload, lo, hi, s.units, false)
		if err != nil {
			return fmt.Errorf("%s: %w", s.workload, err)
		}
		got[s.workload] = v
		r.samples = append(r.samples, v/1000)
		if v, err = marginal(dir, self, s.workload, lo, hi, s.units, true); err != nil {
			return fmt.Errorf("%s: %w", s.workload, err)
		}
		rgc.samples = append(rgc.samples, v/1000)
	}
	if got["tool1"] > 0 && got["tool0"] > 0 {
		r := rep.add(&row{group: g, name: "per tool round (the difference: a model call, the argument check, the tool's step, the messages), GC off", unit: "k instr", digits: 1})
		r.samples = append(r.samples, (got["tool1"]-got["tool0"])/1000)
	}
	for _, shape := range []string{"2node", "forkjoin"} {
		if got[shape+"-eino"] == 0 || got[shape+"-cogloop"] == 0 {
			continue
		}
		r := rep.add(&row{group: g, name: "ratio cogloop / eino, GC off, " + shape, unit: "×", digits: 2, target: "≤ 1.0", ok: atMost(1.0)})
		r.samples = append(r.samples, got[shape+"-cogloop"]/got[shape+"-eino"])
	}
	if !only("validate") {
		return nil
	}
	// validate: a whole fresh process, as the user runs it.
	vr := rep.add(&row{group: g, name: "`cogloop validate` process, 200 agents", unit: "M instr", digits: 1})
	src, _ := bigWorkflow(200)
	path := filepath.Join(dir, "workflow.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return err
	}
	bin, err := buildCLI(dir)
	if err != nil {
		vr.skipped = "cannot build cmd/cogloop: " + firstLine(err.Error())
		return nil
	}
	n, err := instructions(dir, true, bin, "validate", path)
	if err != nil {
		return errors.New("validate under callgrind: " + err.Error())
	}
	vr.samples = append(vr.samples, float64(n)/1e6)
	rep.note("**instructions (callgrind)**: each workload runs in a child process of the bench binary under "+
		"`valgrind --tool=callgrind`, once for about %d and once for about %d units (agent steps, iterations); the row is the difference in instructions "+
		"executed by the whole process (every goroutine, the runtime and the GC) divided by the difference in units, so "+
		"start-up, parsing and first-run initialisation cancel out. Instruction counts do not depend on the machine's "+
		"load or clock, so they compare across machines and runs; the ratios come from counts of the same run. The "+
		"validate row is one whole `cogloop validate` process (start-up included).", lo, hi)
	return nil
}
