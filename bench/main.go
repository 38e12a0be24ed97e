// Command bench measures what cogloop adds to model latency, how well it runs
// branches in parallel, how many loops one machine holds, and how its loops
// compare with the same loops written with cloudwego/eino.
//
//	cd bench && go run .          # the full suite (a few minutes): writes results.md
//	cd bench && go run . -quick   # one short pass of every scenario (CI)
//	cd bench && go run . -run '^concurrent$' -concurrent 10000   # one scenario, one N
//	cd bench && go run . -run '^forkjoin$'                       # fork/join of 8 branches alone
//
// Every scenario runs with the in-process scripted model (the model behind
// `cogloop run --script`), some also through a loopback OpenAI-compatible
// server; the Redis scenario needs redis-server on PATH and reports itself
// skipped without it. The bench is its own Go module, so eino never enters
// cogloop's go.mod. Nothing here asserts on timings: a missed target is
// reported, not failed; a scenario that cannot do its work (an agent fails, a
// loop stops early) fails the command.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	quick := flag.Bool("quick", false, "one short pass of every scenario (N ≤ 1,000); writes no results.md unless -out is given")
	out := flag.String("out", "", "write the markdown report here (default: results.md for a full run of every scenario; nothing with -quick or -run)")
	runRE := flag.String("run", "", "run only the scenarios whose name matches this regexp: cpu, profile, eino, latency, forkjoin, redis, validate, checkpoint, concurrent, realistic, tokens, queue, stream, conns, sse, binsize, callgrind (callgrind runs only when named, or with -callgrind)")
	cpuprofile := flag.String("cpuprofile", "", "keep the CPU profile of the per-iteration scenario in this file, and that of validate in FILE.validate (default: temporary files)")
	cg := flag.Bool("callgrind", false, "report instruction counts per unit (valgrind --tool=callgrind, two repetition counts per workload) instead of the other scenarios, unless -run names them")
	cgChild := flag.String("callgrind-child", "", "internal: run this workload -n times (the process callgrind measures)")
	flag.StringVar(&cgOnly, "workloads", "", "with -callgrind: measure only the workloads whose name matches this regexp (step, loop, 2node-cogloop, 2node-eino, forkjoin-cogloop, forkjoin-eino, chain3/10/30, histchain3/10/30/100, history1000, history1000-redis, validate)")
	concurrent := flag.String("concurrent", "", "the N of the concurrent scenario, comma-separated (of 100, 1000, 10000; default: all three, -quick: 100,1000)")
	cgN := flag.Int("n", 1, "internal: repetitions for -callgrind-child")
	serve := flag.Bool("serve-openai", false, "internal: serve the loopback OpenAI-compatible model (child process)")
	flag.Parse()
	if *serve {
		serveOpenAI()
		return
	}
	if *cgChild != "" {
		os.Exit(callgrindChild(*cgChild, *cgN))
	}
	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	cfg.profile = *cpuprofile
	if *concurrent != "" {
		cfg.concurrent = nil
		for f := range strings.SplitSeq(*concurrent, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || !slices.Contains([]int{100, 1000, 10000}, n) {
				fmt.Fprintf(os.Stderr, "bench: -concurrent: %q is not one of 100, 1000, 10000\n", f)
				os.Exit(2)
			}
			cfg.concurrent = append(cfg.concurrent, n)
		}
	}
	if *cg && *runRE == "" {
		*runRE = "^callgrind$"
	}
	if *out == "" && !*quick && *runRE == "" {
		*out = "results.md" // only a full run of the whole suite replaces the committed report
	}
	var only *regexp.Regexp
	if *runRE != "" {
		var err error
		if only, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintln(os.Stderr, "bench: -run:", err)
			os.Exit(2)
		}
	}
	os.Exit(run(cfg, only, *out))
}

type scenario struct {
	name string
	run  func(*report, config) error
}

func run(cfg config, only *regexp.Regexp, out string) int {
	rep := &report{quick: cfg.quick, reps: cfg.reps, start: time.Now(), loadBefore: loadAverage()}
	scenarios := []scenario{
		{"cpu", scenarioCPU},
		{"profile", func(rep *report, cfg config) error {
			top, err := profileScenarios(cfg)
			rep.top = top
			return err
		}},
		{"eino", scenarioEino},
		{"latency", scenarioLatency},
		{"forkjoin", scenarioForkJoin},
		{"redis", scenarioRedis},
		{"validate", scenarioValidate},
		{"checkpoint", scenarioCheckpoint},
		{"concurrent", scenarioConcurrent},
		{"realistic", scenarioRealistic},
		{"tokens", scenarioTokens},
		{"queue", scenarioQueue},
		{"callgrind", scenarioCallgrind},
		{"stream", scenarioStream},
		{"conns", scenarioConns},
		{"sse", scenarioSSE},
		{"binsize", scenarioBinSize},
	}
	failed := 0
	for _, s := range scenarios {
		if only != nil && !only.MatchString(s.name) || only == nil && s.name == "callgrind" {
			continue // callgrind (minutes under valgrind) runs only when asked for
		}
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "== %s ", s.name)
		if err := s.run(rep, cfg); err != nil {
			fmt.Fprintf(os.Stderr, "FAILED: %v\n", err)
			failed++
			continue
		}
		fmt.Fprintf(os.Stderr, "(%s)\n", time.Since(t0).Round(10*time.Millisecond))
	}
	rep.took = time.Since(rep.start)
	fmt.Println()
	rep.printTable(os.Stdout)
	fmt.Printf("\n%s in %s\n", map[bool]string{true: "quick pass", false: "full run"}[cfg.quick], rep.took.Round(100*time.Millisecond))
	if out != "" {
		if err := os.WriteFile(out, []byte(rep.markdown()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		fmt.Printf("wrote %s\n", out)
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d scenario(s) failed\n", failed)
		return 1
	}
	return 0
}
