package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/cogloop/cogloop"
)

// profileScenarios profiles two workloads and returns the "Where the time
// goes" section of results.md: the framework-CPU loop (3 agents, score and
// lesson extraction, zero model latency), and loading the generated 200-agent
// workflow (what `cogloop validate` does).
func profileScenarios(cfg config) (string, error) {
	const loops = 10
	wf, err := parse(loopWorkflow(loops, false, modelSpec{}), "loop.yaml")
	if err != nil {
		return "", err
	}
	m := newModels(0)
	iter, err := profileRun(cfg.profile, cfg.profileFor, func() (int, error) {
		return loops, runLoop(wf, loops, cogloop.WithModels(m))
	})
	if err != nil {
		return "", err
	}
	iter.title = "the framework-CPU loop scenario (3 agents, score and lesson extraction, 0 ms model)"
	iter.unit = "iteration"

	src, n := bigWorkflow(200)
	dir, err := os.MkdirTemp("", "cogloop-bench-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "workflow.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		return "", err
	}
	out := ""
	if cfg.profile != "" {
		out = cfg.profile + ".validate"
	}
	load, err := profileRun(out, cfg.profileFor/2, func() (int, error) {
		_, err := cogloop.Load(path)
		return 1, err
	})
	if err != nil {
		return "", err
	}
	load.title = fmt.Sprintf("loading the generated %d-agent workflow (`cogloop validate` without the process start)", n)
	load.unit = "load"

	if cfg.profile != "" {
		fmt.Fprintf(os.Stderr, "[cpu profiles: %s, %s] ", iter.path, load.path)
	}
	var b strings.Builder
	b.WriteString("Recreate the profiles with `go run . -run profile -cpuprofile cpu.pprof` (the second lands in " +
		"cpu.pprof.validate) and read them with `go tool pprof -http=: cpu.pprof`.\n\n")
	for _, p := range []*profiled{iter, load} {
		s, err := p.summary()
		if cfg.profile == "" {
			_ = os.Remove(p.path) // a temporary file
		}
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// profiled is a CPU profile of units of work.
type profiled struct {
	path        string
	units       int
	title, unit string
}

// profileRun calls fn under the CPU profiler for d (after a warm-up outside
// it), writing the profile to path (a temporary file when empty).
func profileRun(path string, d time.Duration, fn func() (int, error)) (*profiled, error) {
	if path == "" {
		f, err := os.CreateTemp("", "cogloop-bench-*.pprof")
		if err != nil {
			return nil, err
		}
		path = f.Name()
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	for range 3 {
		if _, err := fn(); err != nil {
			_ = f.Close() // the error returned is the one that matters
			return nil, err
		}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close() // the error returned is the one that matters
		return nil, err
	}
	units := 0
	t0 := time.Now()
	for time.Since(t0) < d {
		n, err := fn()
		if err != nil {
			pprof.StopCPUProfile()
			_ = f.Close() // the error returned is the one that matters
			return nil, err
		}
		units += n
	}
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		return nil, err
	}
	return &profiled{path: path, units: units}, nil
}

// summary reads the profile and renders, as markdown, the time per package
// and the top functions by own (flat) and by cumulative time.
func (pr *profiled) summary() (string, error) {
	f, err := os.Open(pr.path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	p, err := profile.Parse(f)
	if err != nil {
		return "", err
	}
	vi := len(p.SampleType) - 1 // cpu nanoseconds
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	flat, cum, pkgs := map[string]int64{}, map[string]int64{}, map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		seen := map[string]bool{}
		var stack []string // leaf first
		for _, loc := range s.Location {
			for _, line := range loc.Line { // the innermost inlined frame first
				stack = append(stack, line.Function.Name)
			}
		}
		if len(stack) > 0 {
			flat[stack[0]] += v
			pkgs[pkgOf(stack)] += v
		}
		for _, fn := range stack {
			if !seen[fn] {
				seen[fn] = true
				cum[fn] += v
			}
		}
	}
	if total == 0 {
		return "", fmt.Errorf("cpu profile %s has no samples", pr.path)
	}
	var b strings.Builder
	per := func(v int64) string {
		return fmt.Sprintf("%.1f µs", float64(v)/1e3/float64(pr.units))
	}
	fmt.Fprintf(&b, "### Profile of %s\n\n%s of CPU samples over %d %ss: %s per %s, the GC's background work "+
		"included (the profiler adds a little).\n\n",
		pr.title, time.Duration(total).Round(time.Millisecond), pr.units, pr.unit, per(total), pr.unit)
	fmt.Fprintf(&b, "By package (own time):\n\n| package | share | per %s |\n| --- | ---: | ---: |\n", pr.unit)
	for _, kv := range top(pkgs, 14) {
		fmt.Fprintf(&b, "| %s | %.1f%% | %s |\n", kv.k, 100*float64(kv.v)/float64(total), per(kv.v))
	}
	fmt.Fprintf(&b, "\nTop functions by own (flat) time:\n\n| function | flat | per %s |\n| --- | ---: | ---: |\n", pr.unit)
	for _, kv := range top(flat, 20) {
		fmt.Fprintf(&b, "| `%s` | %.1f%% | %s |\n", kv.k, 100*float64(kv.v)/float64(total), per(kv.v))
	}
	fmt.Fprintf(&b, "\nTop cogloop functions by cumulative time (the function and what it calls):\n\n| function | cum | per %s |\n| --- | ---: | ---: |\n", pr.unit)
	ours := map[string]int64{}
	for k, v := range cum {
		if strings.HasPrefix(k, "github.com/cogloop/cogloop") && !strings.Contains(k, "/bench.") && !strings.HasPrefix(k, "github.com/cogloop/cogloop/bench") {
			ours[k] = v
		}
	}
	for _, kv := range top(ours, 25) {
		fmt.Fprintf(&b, "| `%s` | %.1f%% | %s |\n", strings.TrimPrefix(kv.k, "github.com/cogloop/cogloop/"), 100*float64(kv.v)/float64(total), per(kv.v))
	}
	b.WriteString("\n")
	return b.String(), nil
}

type kv struct {
	k string
	v int64
}

func top(m map[string]int64, n int) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	slices.SortFunc(out, func(a, b kv) int {
		if a.v != b.v {
			if a.v > b.v {
				return -1
			}
			return 1
		}
		return strings.Compare(a.k, b.k)
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// pkgOf is the package of a sample's leaf function ("strings",
// "github.com/x/y/prompt"). Time in the Go runtime is split by what it was
// doing, judged from the stack: the garbage collector, allocation, map
// operations, preemption, the rest.
func pkgOf(stack []string) string {
	pkg := packageName(stack[0])
	if pkg != "runtime" && !strings.HasPrefix(pkg, "internal/runtime") && !strings.HasPrefix(pkg, "internal/") && strings.Contains(stack[0], ".") {
		return pkg
	}
	has := func(prefixes ...string) bool {
		for _, fn := range stack {
			for _, p := range prefixes {
				if strings.HasPrefix(fn, p) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.bgsweep", "runtime.bgscavenge", "runtime.markroot",
		"runtime.gcStart", "runtime.gcMarkDone", "runtime.gcMarkTermination", "runtime.sweepone", "runtime.gcDrain", "runtime.wbBuf"):
		return "runtime: garbage collection"
	case has("runtime.asyncPreempt"):
		return "runtime: preemption"
	case has("runtime.mallocgc", "runtime.newobject", "runtime.growslice", "runtime.makeslice", "runtime.makemap"):
		return "runtime: allocation"
	case has("internal/runtime/maps", "runtime.mapaccess", "runtime.mapassign", "runtime.mapiter", "aeshashbody", "runtime.memhash", "runtime.strhash"):
		return "runtime: maps"
	case has("runtime.schedule", "runtime.findRunnable", "runtime.park_m", "runtime.goexit0", "runtime.mcall", "runtime.futex", "runtime.notesleep", "runtime.netpoll"):
		return "runtime: scheduler"
	}
	return "runtime: other (conversions, copies, …)"
}

// packageName is a function name's package path.
func packageName(fn string) string {
	name := fn
	if i := strings.Index(name, "["); i >= 0 { // type parameters may hold slashes
		name = name[:i]
	}
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}
