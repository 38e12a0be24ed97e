package flow_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/orchestrator"
	"golang.org/x/sync/errgroup"
)

// forkJoinWorkflow is a fork of n one-agent branches and a join. With scripted,
// every branch agent is a scripted LLM agent (template render, retry wrapper,
// reply parsing) whose reply takes delay; otherwise it is a const agent, so the
// op measures the fork/join machinery alone.
func forkJoinWorkflow(b *testing.B, n int, scripted bool, delay time.Duration) *orchestrator.Workflow {
	var targets, defs strings.Builder
	for i := range n {
		id := fmt.Sprintf("branch_%d", i)
		if i > 0 {
			targets.WriteString(", ")
		}
		targets.WriteString(id)
		if scripted {
			fmt.Fprintf(&defs, "  - {id: %s, type: scripted, prompt: \"Reason about {{ get_input() }} as %s\", responses: {cycle: [{text: \"answer %d\", delay: %s}]}}\n", id, id, i, delay)
		} else {
			fmt.Fprintf(&defs, "  - {id: %s, type: const, response: answer %d}\n", id, i)
		}
	}
	src := fmt.Sprintf("orchestrator: {id: bench, agents: [f, j]}\nagents:\n  - {id: f, type: fork, targets: [%s]}\n  - {id: j, type: join, group: f}\n%s", targets.String(), defs.String())
	w := &world{}
	wf, _, err := orchestrator.Parse([]byte(src), "bench.yaml", w.registry())
	if err != nil {
		b.Fatal(err)
	}
	return wf
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runForkJoin(b *testing.B, wf *orchestrator.Workflow, branches int) {
	run := &agents.Run{ID: "bench", Observe: func(event.Event) {}}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		out, err := wf.Run(ctx, agents.Input{Value: "tides", Run: run})
		if err != nil {
			b.Fatal(err)
		}
		if j, _ := out.Children.Get("j"); j.Failed() || out.Children.Len() != branches+2 {
			b.Fatal(j.Err, out.Children.IDs())
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*branches), "cpu-ns/branch")
}

// BenchmarkForkJoin runs a fork and its join:
//
//   - latency20ms/8branches: 8 scripted branches whose every reply takes 20 ms;
//     the wall/20ms metric is the op's wall time over one reply's latency (ideal
//     1.0: the branches overlap completely); latency20ms/baseline is the same
//     wait without the framework (8 goroutines sleeping 20 ms), the floor this
//     machine's timers and scheduler allow;
//   - zero latency, scripted or const agents, 8 or 2 branches (2 branches: fork,
//     two agents, join — four nodes, eino's fork/join benchmark shape): ns/op,
//     allocs/op and cpu-ns/branch, the process CPU time (all goroutines, GC
//     included) per branch.
func BenchmarkForkJoin(b *testing.B) {
	b.Run("latency20ms/8branches", func(b *testing.B) {
		const latency = 20 * time.Millisecond
		wf := forkJoinWorkflow(b, 8, true, latency)
		runForkJoin(b, wf, 8)
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(latency), "wall/20ms")
	})
	b.Run("latency20ms/baseline", func(b *testing.B) {
		// The same wait without the framework: 8 goroutines sleeping 20 ms.
		const latency = 20 * time.Millisecond
		for b.Loop() {
			var g errgroup.Group
			for range 8 {
				g.Go(func() error { return retry.Sleep(context.Background(), latency) })
			}
			_ = g.Wait()
		}
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(latency), "wall/20ms")
	})
	for _, tc := range []struct {
		name     string
		branches int
		scripted bool
	}{
		{"zero/scripted/8branches", 8, true},
		{"zero/const/8branches", 8, false},
		{"zero/scripted/2branches", 2, true},
		{"zero/const/2branches", 2, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			wf := forkJoinWorkflow(b, tc.branches, tc.scripted, 0)
			runForkJoin(b, wf, tc.branches)
		})
	}
}
