package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// leaseWorkflow: three passes of two model calls, under a budget.
const leaseWorkflow = `orchestrator: {id: leased, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.99
    budget: {max_tokens: 400}
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, scorer]}
      agents:
        - {id: writer, type: openai-answer, model: gpt-4o-mini, max_tokens: 20, prompt: "write {{ loop_number }}"}
        - {id: scorer, type: openai-answer, model: gpt-4o-mini, max_tokens: 20, prompt: "score {{ loop_number }}"}
`

// countingServer speaks OpenAI chat completions on loopback, counts the
// calls and the tokens it bills (10 + 10 a call), and holds its first call
// until release is closed, after sending on first.
func countingServer(t *testing.T) (url string, calls, tokens *atomic.Int64, first chan struct{}, release chan struct{}) {
	calls, tokens = new(atomic.Int64), new(atomic.Int64)
	first, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := agenttest.ReadChatRequest(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if calls.Add(1) == 1 {
			once.Do(func() { close(first) })
			<-release
		}
		tokens.Add(20)
		agenttest.WriteChatReply(w, "SCORE: 0.1", 10, 10)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", calls, tokens, first, release
}

// Two processes on one run id: while the first is in its first model call,
// a second `run --run-id` and a `--resume` of the same id are refused,
// naming the holder (the first process's pid) and its lease's expiry, and
// they make no model call; the first finishes alone: 6 calls for 3 passes,
// 120 tokens against the budget of 400, as one process spends them.
func TestSecondProcessOnALiveRunIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := redistest.Start(t)
	url, calls, tokens, first, release := countingServer(t)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", url)
	t.Setenv("COGLOOP_RECORD_DIR", t.TempDir())
	wf := writeFile(t, t.TempDir(), "wf.yaml", leaseWorkflow)

	var out bytes.Buffer
	a := start(t, &out, "run", wf, "x", "--redis", srv.URL(), "--run-id", "shared", "--json")
	<-first // a holds the lease and is inside its first model call

	for _, args := range [][]string{
		{"run", wf, "x", "--redis", srv.URL(), "--run-id", "shared"},
		{"run", wf, "--redis", srv.URL(), "--resume", "shared"},
	} {
		cmd := exec.Command(clibin.Path(t), args...)
		var stderr bytes.Buffer
		cmd.Stderr, cmd.Stdout = &stderr, io.Discard
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v must fail; stderr:\n%s", args, stderr.String())
		assert.Equal(t, exitFailure, ee.ExitCode())
		assert.Contains(t, stderr.String(), `run "shared" is live in another process`)
		assert.Contains(t, stderr.String(), fmt.Sprintf("/%d/", a.cmd.Process.Pid), "the holder is named")
		assert.Contains(t, stderr.String(), "holds its lease until")
	}
	assert.Equal(t, int64(1), calls.Load(), "the refused processes made no model call")

	close(release)
	require.Equal(t, 0, a.wait(t), a.stderr())
	assert.Equal(t, int64(6), calls.Load(), "one process, 3 passes × 2 calls")
	assert.Equal(t, int64(120), tokens.Load())
	var res struct{ Status string }
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, "ok", res.Status)

	// The budget is counted in Redis, in the run's checkpoint: what the one
	// process spent, as the server billed it.
	store, err := redis.New(context.Background(), srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	defer func() { _ = store.Close() }()
	cp, ok, err := store.LoadCheckpoint(context.Background(), "shared")
	require.NoError(t, err)
	require.True(t, ok)
	var spent spend.Usage
	var record []byte
	for path, v := range cp.State {
		if strings.HasPrefix(path, "budget:") {
			record = v
		}
	}
	require.NoError(t, json.Unmarshal(record, &spent), "budget record: %s", record)
	assert.Equal(t, 120, spent.Total(), "the budget counted what the server billed")

	// The lease was released at the end: the run can be resumed at once.
	code, _, errs := runCLI(t, "run", wf, "--redis", srv.URL(), "--resume", "shared")
	assert.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "live in another process")
}
