package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
)

// ---------------------------------------------------------------------------
// 11. N realistic concurrent runs (issue 31.5): every run a 5-pass loop of 3
// agents against the loopback OpenAI-compatible server, each call answered
// after its own latency between realMin and realMax, with and without
// streaming.

// realModel is the model name that asks the server for the per-call latency
// of realDelay instead of a fixed one.
const realModel = "bench-real"

// realCalls is the calls of one run: 5 passes × 3 agents.
const realCalls = 5 * 3

// realRange is the latency range of the scenario: 50–500 ms, or 5–50 ms with -quick.
func realRange(quick bool) (lo, hi time.Duration) {
	if quick {
		return 5 * time.Millisecond, 50 * time.Millisecond
	}
	return 50 * time.Millisecond, 500 * time.Millisecond
}

// realDelay is the latency of the k-th call (0-based) of the run whose input
// carries marker: spread evenly over [lo, hi] by a hash, so the server and
// the parent, which computes the ideal, agree without talking.
func realDelay(marker string, k int, lo, hi time.Duration) time.Duration {
	h := fnv.New64a()
	_, _ = h.Write([]byte(marker))
	_, _ = h.Write([]byte{byte(k), byte(k >> 8)})              //nolint:gosec // the low bytes of a pass number, cut on purpose
	span := uint64(hi-lo)/uint64(time.Millisecond) + 1         //nolint:gosec // hi > lo ≥ 0: the caller's range
	return lo + time.Duration(h.Sum64()%span)*time.Millisecond //nolint:gosec // below span, a small number of ms
}

// realMarker is the tag a run's input carries: the server reads it back from
// every prompt (each prompt shows the task).
func realMarker(rep, i int) string { return fmt.Sprintf("[run %d-%d]", rep, i) }

// realServer is the child's state for realModel: each run's calls so far and
// the latency range (from the model name's suffix).
type realServer struct {
	mu    sync.Mutex
	calls map[string]int
}

var realState = &realServer{calls: map[string]int{}}

// delayFor is the latency of the next call of the run named in prompt;
// model is realModel + "-<lo>-<hi>".
func (s *realServer) delayFor(model, prompt string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(model, realModel+"-")
	if !ok {
		return 0, false
	}
	loS, hiS, _ := strings.Cut(rest, "-")
	lo, err1 := time.ParseDuration(loS)
	hi, err2 := time.ParseDuration(hiS)
	i := strings.Index(prompt, "[run ")
	j := strings.IndexByte(prompt[max(i, 0):], ']')
	if err1 != nil || err2 != nil || i < 0 || j < 0 {
		return 0, false
	}
	marker := prompt[i : i+j+1]
	s.mu.Lock()
	k := s.calls[marker]
	s.calls[marker] = k + 1
	s.mu.Unlock()
	return realDelay(marker, k, lo, hi), true
}

// streamReply writes text as an OpenAI chat-completions stream: one chunk per
// word (about a token), flushed each, then the usage chunk and [DONE].
func streamReply(w http.ResponseWriter, model, text string) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	chunk := func(v map[string]any) {
		b, _ := json.Marshal(v)
		_, _ = w.Write([]byte("data: "))
		_, _ = w.Write(b)
		_, _ = w.Write([]byte("\n\n"))
		if fl != nil {
			fl.Flush()
		}
	}
	base := func(choices []any) map[string]any {
		return map[string]any{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": choices}
	}
	words := strings.SplitAfter(text, " ")
	for i, word := range words {
		delta := map[string]any{"content": word}
		if i == 0 {
			delta["role"] = "assistant"
		}
		chunk(base([]any{map[string]any{"index": 0, "delta": delta}}))
	}
	chunk(base([]any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}))
	last := base([]any{})
	last["usage"] = map[string]any{"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380}
	chunk(last)
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	if fl != nil {
		fl.Flush()
	}
}

func scenarioRealistic(rep *report, cfg config) error {
	n := 1000
	if cfg.quick {
		n = 100
	}
	lo, hi := realRange(cfg.quick)
	g := fmt.Sprintf("%d realistic concurrent runs, 5 loops × 3 agents @ %s–%s (loopback OpenAI HTTP)", n, lo, hi)
	srv, err := startOpenAIServer()
	if err != nil {
		r := rep.add(&row{group: g, name: "wall / ideal", unit: "×"})
		r.skipped = err.Error()
		return nil
	}
	defer srv.Close()
	spec := modelSpec{url: srv.URL, name: fmt.Sprintf("%s-%s-%s", realModel, lo, hi)}
	wf, err := parse(loopWorkflow(5, false, spec), "loop-real.yaml")
	if err != nil {
		return err
	}
	procs := runtime.GOMAXPROCS(0)
	reps := 1 // 2 × 1,000 runs of ~4–5 s; the machine's load moves the ratio more than a median would fix
	if !cfg.quick {
		reps = max(1, cfg.concReps/3)
	}
	repID := 0
	for _, stream := range []bool{false, true} {
		how := "without streaming"
		target, ok := "≤ 1.15", atMost(1.15)
		if stream {
			how, target, ok = "streaming (-v, WithDeltas)", "≤ 1.3", atMost(1.3)
		}
		ratio := rep.add(&row{group: g, name: "wall / ideal, " + how, unit: "×", digits: 3, target: target, ok: ok})
		ideal := rep.add(&row{group: g, name: "  ideal: the slowest run's 15 latencies, " + how, unit: "s", digits: 2})
		cpu := rep.add(&row{group: g, name: fmt.Sprintf("  CPU of this process per model call (%d CPUs), %s", procs, how), unit: "µs", digits: 0})
		srvCPU := rep.add(&row{group: g, name: "  CPU of the loopback model server (the child) per model call, " + how, unit: "µs", digits: 0})
		for range reps {
			repID++
			s0, sok := procCPU(srv.cmd.Process.Pid)
			c, id, err := realisticRuns(wf, n, repID, lo, hi, stream, cfg.profile)
			if err != nil {
				return fmt.Errorf("%d realistic runs, %s: %w", n, how, err)
			}
			ratio.samples = append(ratio.samples, float64(c.wall)/float64(id))
			ideal.samples = append(ideal.samples, id.Seconds())
			cpu.samples = append(cpu.samples, us(c.cpu)/float64(n*realCalls))
			if s1, ok := procCPU(srv.cmd.Process.Pid); ok && sok {
				srvCPU.samples = append(srvCPU.samples, us(s1-s0)/float64(n*realCalls))
			} else {
				srvCPU.skipped = "/proc/PID/stat cannot be read here"
			}
		}
	}
	rep.note("**%d realistic concurrent runs** (issue 31.5): %d goroutines start together, each running the 3-agent, 5-pass loop "+
		"(lesson extraction on) against the loopback OpenAI-compatible server (a child process), every call answered after its own "+
		"latency, spread evenly over %s–%s by a hash of the run and call number. The ideal is the slowest run's sum of its 15 "+
		"latencies (no run can finish earlier); wall / ideal above 1 is what the framework, langchaingo's client, net/http and "+
		"the server's share of the %d CPUs added (the server's own CPU per call is its row: on a machine of few cores it competes with the runs, which a remote model does not). The streaming row calls the model with stream: true (cogloop.WithDeltas(), as "+
		"`-v` does; the server sends one chunk per word) and counts the agent.delta events. -quick runs 100 runs at 5–50 ms.",
		n, n, lo, hi, procs)
	return nil
}

// realisticRuns starts n runs at once (repetition repID) and waits for all of
// them; it returns their cost and the ideal wall time.
func realisticRuns(wf *cogloop.Workflow, n, repID int, lo, hi time.Duration, stream bool, profile string) (concCost, time.Duration, error) {
	var ideal time.Duration
	for i := range n {
		var sum time.Duration
		for k := range realCalls {
			sum += realDelay(realMarker(repID, i), k, lo, hi)
		}
		ideal = max(ideal, sum)
	}
	var deltas atomic.Int64
	opts := []cogloop.RunOption{}
	if stream {
		opts = append(opts, cogloop.WithDeltas(), cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.AgentDelta {
				deltas.Add(1)
			}
		}))
	}
	if profile != "" {
		f, err := os.Create(fmt.Sprintf("%s.realistic-%t", profile, stream))
		if err != nil {
			return concCost{}, 0, err
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return concCost{}, 0, err
		}
		defer pprof.StopCPUProfile()
	}
	runtime.GC()
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	cpu0, t0 := cpuTime(), time.Now()
	for i := range n {
		input := task + " " + realMarker(repID, i)
		wg.Go(func() {
			res, err := wf.Run(ctx, input, opts...)
			if err = check(res, err, "improvement_loop", 5); err != nil {
				errOnce.Do(func() { firstErr = err })
			}
		})
	}
	wg.Wait()
	c := concCost{wall: time.Since(t0), cpu: cpuTime() - cpu0}
	if firstErr == nil && stream && deltas.Load() < int64(n*realCalls) {
		firstErr = fmt.Errorf("streaming: %d agent.delta events for %d calls: the calls did not stream", deltas.Load(), n*realCalls)
	}
	return c, ideal, firstErr
}
