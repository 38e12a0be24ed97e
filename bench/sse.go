package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/serve"
)

// The sse scenario runs one loop through cogloop serve (package serve) with
// 0 and then 200 clients following its events (GET /api/runs/ID/events):
// the run's own duration (from its record) must not grow with the clients,
// and every client must get every event.

const sseWF = `orchestrator: {id: sse-bench, strategy: sequential, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 20
    score_threshold: 0.99
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    internal_workflow:
      orchestrator: {id: pass, strategy: sequential, agents: [writer, scorer]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "Improve {{ get_input() }}"}
        - {id: scorer, type: openai-answer, model: m, prompt: "Rate {{ previous_outputs.writer.response }}"}
`

// 20 passes of two 10 ms calls: 1 s of model time.
const sseScript = `writer: {cycle: [{text: draft, delay: 25ms}]}
scorer: {cycle: [{text: "SCORE: 0.5", delay: 25ms}]}
`

const sseClients = 200

func scenarioSSE(rep *report, cfg config) error {
	const g = "serve: one run, 200 SSE clients"
	dir, err := os.MkdirTemp("", "cogloop-bench-sse-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	wfs := filepath.Join(dir, "workflows")
	if err := os.MkdirAll(wfs, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(wfs, "loop.yaml"), []byte(sseWF), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(wfs, "loop.replies.yaml"), []byte(sseScript), 0o600); err != nil {
		return err
	}
	recs := records.Dir{Path: filepath.Join(dir, "runs")}
	srv, err := serve.New(serve.Config{Records: recs, Workflows: wfs, Start: sseStart(recs)})
	if err != nil {
		return err
	}
	ts := httptest.NewServer(srv)
	defer func() {
		ts.Close()
		_ = srv.Close()
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: sseClients, MaxConnsPerHost: 0}}

	reps := max(cfg.reps, 3)
	alone := rep.add(&row{group: g, name: "run duration, no client (20 passes, 1 s of model time)", unit: "ms", digits: 1})
	watched := rep.add(&row{group: g, name: fmt.Sprintf("same, %d clients following its events", sseClients), unit: "ms", digits: 1})
	ratio := rep.add(&row{group: g, name: "slowdown (watched / alone)", digits: 3, target: "≤ 1.05", ok: atMost(1.05)})
	lag := rep.add(&row{group: g, name: "last client done after run.end written", unit: "ms", digits: 1})
	cpu0 := rep.add(&row{group: g, name: "process CPU per run, no client", unit: "ms", digits: 1})
	cpu1 := rep.add(&row{group: g, name: fmt.Sprintf("process CPU per run, %d clients (server and clients)", sseClients), unit: "ms", digits: 1})
	for range reps {
		c0 := cpuTime()
		d0, _, err := sseRun(client, ts.URL, recs, 0)
		if err != nil {
			return err
		}
		c1 := cpuTime()
		d1, after, err := sseRun(client, ts.URL, recs, sseClients)
		if err != nil {
			return err
		}
		c2 := cpuTime()
		cpu0.samples = append(cpu0.samples, ms(c1-c0))
		cpu1.samples = append(cpu1.samples, ms(c2-c1))
		alone.samples = append(alone.samples, ms(d0))
		watched.samples = append(watched.samples, ms(d1))
		ratio.samples = append(ratio.samples, float64(d1)/float64(d0))
		lag.samples = append(lag.samples, ms(after))
	}
	rep.note("**serve**: a 20-pass loop started through `POST /api/runs` of package serve (records in a temporary directory), "+
		"its duration read from its record's run.end; then the same with %d Go clients reading `GET /api/runs/ID/events` "+
		"from before its first pass to its run.end, each checked to get every event of the record. Clients only read the "+
		"record's lines the server keeps once; a client that falls behind its buffer (1,024 events) is dropped, never waited for.", sseClients)
	return nil
}

// sseRun starts one run, has n clients follow it, and returns its duration
// and how long after the record's end the last client finished.
func sseRun(client *http.Client, base string, recs records.Dir, n int) (time.Duration, time.Duration, error) {
	res, err := client.Post(base+"/api/runs", "application/json", strings.NewReader(`{"workflow":"loop.yaml","input":"x"}`))
	if err != nil {
		return 0, 0, err
	}
	var id string
	_, err = fmt.Fscanf(res.Body, `{"run_id":%q}`, &id)
	_ = res.Body.Close()
	if err != nil || res.StatusCode != http.StatusCreated {
		return 0, 0, fmt.Errorf("start a run: %d %w", res.StatusCode, err)
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	counts := make([]int, n)
	var lastDone atomic.Int64
	for i := range n {
		wg.Go(func() {
			c, err := sseFollow(client, base+"/api/runs/"+id+"/events")
			counts[i] = c
			if err != nil {
				failed.Store(err)
			}
			lastDone.Store(max(lastDone.Load(), time.Now().UnixNano()))
		})
	}
	// The run ends when its record does: follow it once more to its end.
	if _, err := sseFollow(client, base+"/api/runs/"+id+"/events"); err != nil {
		return 0, 0, err
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		return 0, 0, err
	}
	rec, err := recs.Read(id)
	if err != nil {
		return 0, 0, err
	}
	s := rec.Summarize()
	if s.Status != cogloop.StatusOK || len(s.Loops) != 1 || s.Loops[0].LoopsCompleted != 20 {
		return 0, 0, fmt.Errorf("run %s: %s, %d loops", id, s.Status, len(s.Loops))
	}
	for i, c := range counts {
		if c != len(rec.Events) {
			return 0, 0, fmt.Errorf("client %d got %d of the run's %d events", i, c, len(rec.Events))
		}
	}
	end := rec.Events[len(rec.Events)-1].Time
	var after time.Duration
	if n > 0 {
		after = time.Unix(0, lastDone.Load()).Sub(end)
	}
	return s.Duration, after, nil
}

// sseFollow reads an event stream to its run.end and counts its events.
func sseFollow(client *http.Client, url string) (int, error) {
	res, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer func() { _ = res.Body.Close() }()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		n++
		if strings.Contains(line, `"kind":"`+event.RunEnd+`"`) {
			return n, nil
		}
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	return n, errors.New("the event stream ended before run.end")
}

// sseStart runs serve's runs in process with the scripted replies.
func sseStart(recs records.Dir) func(context.Context, serve.StartRequest) error {
	return func(ctx context.Context, r serve.StartRequest) error {
		wf, err := cogloop.Load(r.Workflow)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(r.Replies)
		if err != nil {
			return err
		}
		script, err := scripted.Parse(data, r.Replies)
		if err != nil {
			return err
		}
		w, _, err := recs.Create(r.RunID, false, nil)
		if err != nil {
			return err
		}
		_, runErr := wf.Run(ctx, r.Input, cogloop.WithRunID(r.RunID), cogloop.WithModels(script),
			cogloop.WithObserver(func(e event.Event) { w.Observe(e); r.Observe(e) }))
		if err := w.Close(); err != nil {
			return err
		}
		return runErr
	}
}
