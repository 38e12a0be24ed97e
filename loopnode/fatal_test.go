package loopnode_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/cogloop/cogloop/types/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counting counts the HTTP requests a client sends, answered or not.
type counting struct {
	base  http.RoundTripper
	calls atomic.Int64
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls.Add(1)
	return c.base.RoundTrip(r)
}

// llmWorkflow parses src with the real LLM types (langchaingo clients sending
// through a counting transport, retry waits recorded, not waited).
func llmWorkflow(t *testing.T, src string, getenv func(string) string) (*cogloop.Workflow, *counting, *agenttest.Sleeper) {
	t.Helper()
	tr := &counting{base: http.DefaultTransport.(*http.Transport).Clone()}
	sl := &agenttest.Sleeper{}
	reg := agents.NewRegistry()
	llm.RegisterWith(reg, llm.Options{Getenv: getenv, HTTPClient: &http.Client{Transport: tr}, Sleep: sl.Sleep})
	loopnode.Register(reg)
	flow.Register(reg)
	wf, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(reg))
	require.NoError(t, err)
	return wf, tr, sl
}

// A refused key inside a fork inside a loop stops everything at its first call:
// the other branch is cancelled, pass 2 never starts, nothing is retried, and
// the run fails with the agent's full path and the fix.
func TestRefusedKeyInsideALoopStopsTheRunAtOnce(t *testing.T) {
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body["model"] == "slow-model" {
			<-r.Context().Done() // answers only when the client gives up
			return
		}
		refused.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}`))
	}))
	defer srv.Close()
	src := `orchestrator: {id: w, agents: [improve, after]}
agents:
  - id: improve
    type: loop
    max_loops: 3
    internal_workflow:
      orchestrator: {id: inner, agents: [reviews]}
      agents:
        - {id: reviews, type: fork, targets: [[slow], [critic]]}
        - {id: slow, type: openai-answer, model: slow-model, model_url: "` + srv.URL + `", prompt: "take your time"}
        - {id: critic, type: openai-answer, model: gpt-test, model_url: "` + srv.URL + `", prompt: "criticise {{ get_input() }}"}
  - {id: after, type: openai-answer, model: gpt-test, model_url: "` + srv.URL + `", prompt: "never"}
`
	wf, tr, sl := llmWorkflow(t, src, func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-wrong-key"
		}
		return ""
	})
	rec := &agenttest.Recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := wf.Run(ctx, "tides", cogloop.WithObserver(rec.Observe))
	require.Error(t, err)
	require.NoError(t, ctx.Err(), "the blocked branch was cancelled, not waited for")
	assert.True(t, fault.IsFatal(err))
	assert.Contains(t, err.Error(), "improve › iteration 1 › reviews › critic: call openai model \"gpt-test\" at "+srv.URL+"/v1: HTTP 401 Unauthorized")
	assert.Contains(t, err.Error(), "(check the API key in OPENAI_API_KEY; the server does not accept it)")
	assert.NotContains(t, err.Error(), "sk-wrong-key")
	assert.Equal(t, int64(1), refused.Load(), "the refusing server is called exactly once")
	assert.LessOrEqual(t, tr.calls.Load(), int64(2), "one call per branch, no retry")
	assert.Empty(t, sl.Waits(), "no retry waits")
	for _, e := range rec.Events() {
		assert.NotEqual(t, "after", e.Agent, "nothing runs after a fatal error")
		if e.Kind == event.LoopIteration {
			assert.Equal(t, 1, e.Data["loop_number"], "pass 2 never starts")
			assert.Equal(t, false, e.Data["completed"])
		}
		if e.Kind == event.LoopEnd {
			assert.Equal(t, 0, e.Data["loops_completed"])
			assert.Equal(t, "error", e.Data["stop_reason"])
			assert.Contains(t, e.Error, "HTTP 401")
		}
	}
}

// A local model whose server refuses connections fails each pass after its
// retries; two such passes in a row (max_failed_passes) stop the loop with
// stop_reason error instead of trying every pass.
func TestRefusedConnectionsInsideALoopStopAfterMaxFailedPasses(t *testing.T) {
	url := "http://" + nettest.ClosedAddr(t)
	src := `orchestrator: {id: w, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 5
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, judge]}
      agents:
        - {id: writer, type: local_llm, provider: ollama, model: llama3, model_url: "` + url + `", prompt: "write about {{ get_input() }}"}
        - {id: judge, type: scripted, prompt: "judge", responses: {cycle: ["SCORE: 0.2"]}}
`
	wf, tr, sl := llmWorkflow(t, src, func(string) string { return "" })
	res, err := wf.Run(context.Background(), "tides")
	require.ErrorIs(t, err, cogloop.ErrRunFailed, "the loop stopped with an error")
	require.False(t, fault.IsFatal(err), "connection refused is not fatal: the loop's policy decides")
	o, ok := res.Outputs.Get("improve")
	require.True(t, ok)
	assert.Equal(t, "error", o.Fields["stop_reason"])
	assert.Equal(t, 2, o.Fields["loops_completed"])
	assert.Equal(t, int64(8), tr.calls.Load(), "2 passes × (1 call + 3 retries), then no more")
	assert.Len(t, sl.Waits(), 6, "3 retry waits per pass")
	msg := o.Fields["error"].(string)
	assert.True(t, strings.HasPrefix(msg, "improve: 2 passes in a row had a failed agent (max_failed_passes: 2), the last: improve › iteration 2 › writer: "), msg)
	assert.Contains(t, msg, "connection refused")
	assert.Contains(t, msg, "gave up after 4 attempts")
}

// A fatal error in a nested loop ends the inner loop, the outer loop and the
// run at once; the error carries the whole path.
func TestFatalErrorInANestedLoop(t *testing.T) {
	src := `orchestrator: {id: w, agents: [outer, after]}
agents:
  - id: outer
    type: loop
    max_loops: 3
    on_error: continue
    internal_workflow:
      orchestrator: {id: o, agents: [inner]}
      agents:
        - id: inner
          type: loop
          max_loops: 3
          score_threshold: 0.99
          internal_workflow:
            orchestrator: {id: i, agents: [a]}
            agents: [{id: a, type: scripted, responses: ["SCORE: 0.1"]}]
  - {id: after, type: scripted, responses: [never]}
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	_, err = wf.Run(context.Background(), "x", cogloop.WithObserver(rec.Observe))
	require.Error(t, err)
	assert.True(t, fault.IsFatal(err))
	assert.Contains(t, err.Error(), `outer › iteration 1 › inner › iteration 2 › a: agent "a" was called more times than it has scripted replies (1 in its responses)`)
	var ends []string
	for _, e := range rec.Events() {
		assert.NotEqual(t, "after", e.Agent)
		if e.Kind == event.LoopEnd {
			ends = append(ends, e.Node+" "+e.Data["stop_reason"].(string))
		}
	}
	assert.Equal(t, []string{"outer › iteration 1 › inner error", "outer error"}, ends)
}
