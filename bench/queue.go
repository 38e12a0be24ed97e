package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
)

// The queue scenario runs `cogloop worker` processes (package queue, on
// asynq) against a loopback redis-server: the throughput of 1, 2 and 3
// worker processes, and what the queue adds to one run compared with the
// same run in process.

// queueWF is the queue tests' workflow: a 3-pass loop of two agents and a
// final agent.
const queueWF = "../app/queue/testdata/refine.yaml"

// Each model call waits 20 ms: a run is 7 calls, 120 ms of model time.
const queueScript = `writer: {cycle: [{text: draft, delay: 20ms}]}
scorer: {cycle: [{text: "SCORE: 0.5", delay: 20ms}]}
final: {cycle: [done]}
`

const queueModelTime = 120 * time.Millisecond

func scenarioQueue(rep *report, cfg config) error {
	srv, stop, skip, err := startRedis()
	if skip != "" || err != nil {
		rep.add(&row{group: "queue", name: "throughput", skipped: skip})
		return err
	}
	defer stop()
	dir, err := os.MkdirTemp("", "cogloop-bench-queue-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, "cogloop")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cogloop")
	build.Dir = ".." // the cogloop module (bench is its own module)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build cogloop: %w\n%s", err, out)
	}
	source, err := os.ReadFile(queueWF)
	if err != nil {
		return err
	}
	scriptPath := filepath.Join(dir, "replies.yaml")
	if err := os.WriteFile(scriptPath, []byte(queueScript), 0o600); err != nil {
		return err
	}
	url := srv.URL()
	ctx := context.Background()
	c, err := queue.NewClient(url)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	wf := queue.Source(queueWF, source)

	// One run at a time: in process, in process with checkpoints in
	// Redis, and through the queue to one idle worker.
	seq := 20
	if cfg.quick {
		seq = 5
	}
	inProc, inProcCP, err := inProcessRuns(ctx, url, source, seq)
	if err != nil {
		return err
	}
	var sequential []float64
	for _, poll := range []string{"10ms", "1s"} {
		q := "seq-" + strings.TrimSuffix(poll, "s")
		ws, err := startWorkers(bin, url, scriptPath, q, 1, poll)
		if err != nil {
			return err
		}
		var total time.Duration
		n := seq
		if poll == "1s" {
			n = min(seq, 5)
		}
		for i := range n {
			start := time.Now()
			id, err := queue.Enqueue(ctx, c, wf, fmt.Sprintf("doc %d", i), queue.Queue(q))
			if err == nil {
				_, err = c.Wait(ctx, id, 2*time.Millisecond)
			}
			if err != nil {
				stopWorkers(ws)
				return err
			}
			total += time.Since(start)
		}
		stopWorkers(ws)
		sequential = append(sequential, ms(total/time.Duration(n)))
	}
	rep.add(&row{group: "queue", name: "one run in process (7 scripted calls, 120 ms of model time)", unit: "ms", digits: 1, samples: []float64{inProc}})
	rep.add(&row{group: "queue", name: "same, checkpoints in Redis", unit: "ms", digits: 1, samples: []float64{inProcCP}})
	rep.add(&row{group: "queue", name: "same, submit → result through the queue (worker polls every 10 ms)", unit: "ms", digits: 1, samples: []float64{sequential[0]}})
	rep.add(&row{group: "queue", name: "queue overhead per run (vs in process with checkpoints)", unit: "ms", digits: 1, samples: []float64{sequential[0] - inProcCP}})
	rep.add(&row{group: "queue", name: "same, idle worker at the default 1 s poll", unit: "ms", digits: 1, samples: []float64{sequential[1]}})

	// Throughput: N runs submitted at once to k worker processes of
	// concurrency 8 each.
	n := 300
	if cfg.quick {
		n = 60
	}
	var base float64
	for k := 1; k <= 3; k++ {
		q := fmt.Sprintf("tput-%d", k)
		ws, err := startWorkers(bin, url, scriptPath, q, k, "100ms")
		if err != nil {
			return err
		}
		start := time.Now()
		for i := range n {
			if _, err := queue.Enqueue(ctx, c, wf, fmt.Sprintf("doc %d", i), queue.Queue(q)); err != nil {
				stopWorkers(ws)
				return err
			}
		}
		submitted := time.Since(start)
		for {
			qs, _, err := c.Overview(ctx)
			if err != nil {
				stopWorkers(ws)
				return err
			}
			done := -1
			for _, s := range qs {
				if s.Queue == q {
					done = s.Done
					if s.Archived > 0 {
						stopWorkers(ws)
						return fmt.Errorf("queue %s: %d runs failed", q, s.Archived)
					}
				}
			}
			if done == n {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(start)
		stopWorkers(ws)
		tput := float64(n) / took.Seconds()
		if k == 1 {
			base = tput
			rep.add(&row{group: "queue", name: fmt.Sprintf("submit rate (%d runs, one client)", n), unit: "runs/s", digits: 0, samples: []float64{float64(n) / submitted.Seconds()}})
		}
		rep.add(&row{group: "queue", name: fmt.Sprintf("throughput, %d worker process(es) × concurrency 8", k), unit: "runs/s", digits: 1, samples: []float64{tput}})
		if k > 1 {
			rep.add(&row{group: "queue", name: fmt.Sprintf("efficiency of %d workers (throughput / %d × one worker's)", k, k), unit: "", digits: 2, samples: []float64{tput / (float64(k) * base)}})
		}
	}
	rep.note("queue: a run is 3 loop passes of 2 scripted agents plus a final agent, 7 model calls of 20 ms (120 ms of model time); one worker of concurrency 8 could at most do 8 / 0.12 s = %.0f runs/s if the CPU were free. Workers are `cogloop worker` processes on the same 2-core machine as redis-server and the submitting client, so added workers share the CPU.", 8/queueModelTime.Seconds())
	return nil
}

// inProcessRuns times n sequential runs in process, without and with
// checkpoints in Redis; the mean per run in ms.
func inProcessRuns(ctx context.Context, url string, source []byte, n int) (plain, withCP float64, err error) {
	wf, err := cogloop.Parse(source, queueWF)
	if err != nil {
		return 0, 0, err
	}
	script, err := scripted.Parse([]byte(queueScript), "replies.yaml")
	if err != nil {
		return 0, 0, err
	}
	store, err := redis.New(ctx, url, redis.Options{Options: memory.Options{Namespace: "bench-inproc"}})
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = store.Close() }()
	for _, cp := range []bool{false, true} {
		start := time.Now()
		for i := range n {
			opts := []cogloop.RunOption{cogloop.WithModels(script)}
			if cp {
				opts = append(opts, cogloop.WithMemory(store), cogloop.WithCheckpoints())
			}
			if _, err := wf.Run(ctx, fmt.Sprintf("doc %d", i), opts...); err != nil {
				return 0, 0, err
			}
		}
		mean := ms(time.Since(start) / time.Duration(n))
		if cp {
			withCP = mean
		} else {
			plain = mean
		}
	}
	return plain, withCP, nil
}

// startWorkers starts k worker processes on queue q and waits for their
// ready lines.
func startWorkers(bin, url, script, q string, k int, poll string) ([]*exec.Cmd, error) {
	var ws []*exec.Cmd
	for range k {
		cmd := exec.Command(bin, "worker", "--redis", url, "--script", script, "--queues", q,
			"--concurrency", "8", "--poll-interval", poll, "-q")
		errPipe, err := cmd.StderrPipe()
		if err != nil {
			return ws, err
		}
		if err := cmd.Start(); err != nil {
			return ws, err
		}
		ws = append(ws, cmd)
		sc := bufio.NewScanner(errPipe)
		ready := false
		for sc.Scan() {
			if strings.Contains(sc.Text(), "cogloop worker: ready") {
				ready = true
				break
			}
		}
		if !ready {
			stopWorkers(ws)
			return nil, errors.New("a worker exited before it was ready")
		}
		go func() {
			for sc.Scan() {
			}
		}()
	}
	return ws, nil
}

func stopWorkers(ws []*exec.Cmd) {
	for _, w := range ws {
		_ = w.Process.Signal(syscall.SIGTERM)
	}
	for _, w := range ws {
		_ = w.Wait()
	}
}
