package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// queueWF is a 3-pass loop whose prompts name the run's input and pass.
const queueWF = "../../app/queue/testdata/refine.yaml"

// fakeOpenAI speaks OpenAI's chat completions, answers after latency and
// counts calls by prompt.
type fakeOpenAI struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newFakeOpenAI(t *testing.T, latency time.Duration) *fakeOpenAI {
	f := &fakeOpenAI{calls: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := agenttest.ReadChatRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		prompt := req.Prompt
		f.mu.Lock()
		f.calls[prompt]++
		f.mu.Unlock()
		time.Sleep(latency) // the model's latency, not a synchronisation
		text := "draft"
		if strings.HasPrefix(prompt, "rate ") {
			text = "SCORE: 0.5"
		}
		agenttest.WriteChatReply(w, text, 3, 1)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) count(prompt string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[prompt]
}

// workerName is how a worker process names itself (host:pid).
func workerName(t *testing.T, p *proc) string {
	host, err := os.Hostname()
	require.NoError(t, err)
	return host + ":" + strconv.Itoa(p.cmd.Process.Pid)
}

func startWorkerProc(t *testing.T, url string) *proc {
	p := start(t, io.Discard, "worker", "--redis", url, "--concurrency", "4", "--shutdown-timeout", "20s")
	p.waitLine(t, "cogloop worker: ready")
	return p
}

// Three worker processes take 100 runs; one is killed with SIGKILL in the
// middle of a run. asynq re-delivers its runs once their lease expired
// (about a minute: asynq's lease and recovery times are fixed), another
// worker resumes them from their last completed pass, and every run ends
// exactly once with a complete history. A duplicate submit is refused, and
// SIGTERM drains a worker.
func TestWorkersSurviveAKilledWorker(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes") // as the README's quick start
	api := newFakeOpenAI(t, 50*time.Millisecond)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", api.URL+"/v1")
	dir := t.TempDir()
	wf := queueWF
	var lines []string
	for i := 1; i <= 100; i++ {
		lines = append(lines, fmt.Sprintf("%q", fmt.Sprintf("doc-%d", i)))
	}
	data := writeFile(t, dir, "docs.jsonl", strings.Join(lines, "\n")+"\n")
	url := srv.URL()
	workers := []*proc{startWorkerProc(t, url), startWorkerProc(t, url), startWorkerProc(t, url)}

	out, err := exec.Command(clibin.Path(t), "submit", wf, "--dataset", data, "--run-id", "batch", "--redis", url).CombinedOutput()
	require.NoError(t, err, string(out))
	ids := strings.Fields(string(out))
	require.Len(t, ids, 100)
	assert.Equal(t, "batch-1", ids[0])

	c, err := queue.NewClient(url)
	require.NoError(t, err)
	defer func() { _ = c.Close() }() // test client; Close releases the connection
	ctx := context.Background()

	// Kill the third worker once it has a run past its first pass.
	victim := workerName(t, workers[2])
	deadline := time.Now().Add(60 * time.Second)
	for found := false; !found; {
		require.True(t, time.Now().Before(deadline), "worker %s never had a run past pass 1", victim)
		for _, id := range ids {
			st, err := c.Status(ctx, id)
			require.NoError(t, err)
			if r := st.Record; st.State == queue.Running && r != nil && r.Worker == victim && r.State == queue.Running &&
				len(r.Loops) > 0 && r.Loops[0].Pass >= 1 {
				found = true
				break
			}
		}
	}
	require.NoError(t, workers[2].cmd.Process.Kill())
	workers[2].wait(t)
	// A machine replaces the dead one; asynq's recoverer runs when a worker
	// starts and every minute after.
	workers = append(workers[:2], startWorkerProc(t, url))

	deadline = time.Now().Add(150 * time.Second)
	for {
		qs, _, err := c.Overview(ctx)
		require.NoError(t, err)
		require.Len(t, qs, 1)
		require.Zero(t, qs[0].Archived, "no run may fail")
		if qs[0].Done == 100 {
			break
		}
		require.True(t, time.Now().Before(deadline), "not all runs done: %+v", qs[0])
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}

	resumed := 0
	for i, id := range ids {
		st, err := c.Status(ctx, id)
		require.NoError(t, err)
		require.Equal(t, queue.Done, st.State, id)
		r := st.Record
		require.Equal(t, queue.Done, r.State, id)
		var doc struct {
			Status  string `json:"status"`
			Outputs struct {
				Improve struct {
					PastLoops []struct {
						LoopNumber int `json:"loop_number"`
					} `json:"past_loops"`
				} `json:"improve"`
			} `json:"outputs"`
		}
		require.NoError(t, json.Unmarshal(r.Result, &doc))
		assert.Equal(t, "ok", doc.Status, id)
		var numbers []int
		for _, p := range doc.Outputs.Improve.PastLoops {
			numbers = append(numbers, p.LoopNumber)
		}
		assert.Equal(t, []int{1, 2, 3}, numbers, "%s: history without gap or duplicate", id)
		assert.NotEqual(t, victim, r.Worker, id)
		input := fmt.Sprintf("doc-%d", i+1)
		repeated := 0
		for pass := 1; pass <= 3; pass++ {
			for _, agent := range []string{"improve", "rate"} {
				n := api.count(fmt.Sprintf("%s %s pass %d", agent, input, pass))
				assert.True(t, n == 1 || n == 2, "%s %s pass %d: %d calls", id, agent, pass, n)
				if n == 2 {
					repeated++
				}
			}
		}
		assert.LessOrEqual(t, repeated, 2, "%s: only the pass in flight is repeated", id)
		assert.LessOrEqual(t, api.count("final "+input), 2, id)
		if len(r.Attempts) > 1 {
			assert.Equal(t, victim, r.Attempts[0].Worker, "%s: only the killed worker's runs are delivered again", id)
			resumed++
		} else {
			assert.Zero(t, repeated, "%s ran once, so no call repeats", id)
		}
	}
	assert.Positive(t, resumed, "the killed worker's runs resumed elsewhere")
	t.Logf("%d runs of the killed worker resumed on another worker", resumed)

	// The same run id again: refused.
	cmd := exec.Command(clibin.Path(t), "submit", wf, "x", "--run-id", "batch-7", "--redis", url)
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	assert.Equal(t, 1, cmd.ProcessState.ExitCode())
	assert.Contains(t, string(out), "run batch-7: run id already submitted (it is done in queue cogloop)")

	// SIGTERM drains: the worker stops and exits 143.
	require.NoError(t, workers[0].cmd.Process.Signal(syscall.SIGTERM))
	workers[0].waitLine(t, "drained")
	assert.Equal(t, exitSIGTERM, workers[0].wait(t))
}
