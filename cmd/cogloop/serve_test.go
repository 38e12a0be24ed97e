package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// reviewWF asks a person before it publishes; reviewLoopWF is a slow loop
// (each pass waits on its scorer) to pause.
const (
	reviewWF = `orchestrator:
  id: reviewed
  strategy: sequential
  agents: [writer, publish, final]
agents:
  - {id: writer, type: openai-answer, model: gpt-4o-mini, prompt: "Write about {{ get_input() }}"}
  - {id: publish, type: human, prompt: "Publish this draft? {{ previous_outputs.writer.response }}"}
  - {id: final, type: openai-answer, model: gpt-4o-mini, prompt: "Final: {{ previous_outputs.publish.response }}"}
`
	reviewReplies = "writer: [\"<b>draft</b> about loops\"]\nfinal: [\"published\"]\n"
	fastReplies   = `improver: ["one", "two", "three", "four"]
scorer: ["SCORE: 0.3", "SCORE: 0.5", "SCORE: 0.7", "SCORE: 0.9"]
final_answer: ["done"]
`
)

// steerFixture serves workflows review.yaml and live.yaml; answers and
// pauses go through a real Redis with withRedis, else through the checkpoint
// files under the record directory.
func steerFixture(t *testing.T, withRedis bool) (*httptest.Server, string) {
	t.Helper()
	redisURL := ""
	if withRedis {
		redisURL = redistest.Start(t).URL()
	} else {
		t.Setenv("REDIS_URL", "") // no Redis from the environment either
	}
	wfs := t.TempDir()
	data, err := os.ReadFile(qualityWF)
	require.NoError(t, err)
	for name, body := range map[string]string{"review.yaml": reviewWF, "review.replies.yaml": reviewReplies,
		"live.yaml": string(data), "live.replies.yaml": liveReplies, "fast.yaml": budgeted(string(data)), "fast.replies.yaml": fastReplies} {
		require.NoError(t, os.WriteFile(filepath.Join(wfs, name), []byte(body), 0o600))
	}
	recs := t.TempDir()
	srv, closeQueue, err := newServer(serveFlags{addr: "127.0.0.1:0", recordDir: recs, workflows: wfs, redisURL: redisURL}, io.Discard)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
		closeQueue()
	})
	return ts, recs
}

// budgeted is workflow wf with a budget (and a price for its local model,
// which a budget of cost needs).
func budgeted(wf string) string {
	return strings.Replace(wf, "  strategy: sequential\n", "  strategy: sequential\n  budget: {max_tokens: 100000, max_cost: 5}\n"+
		"  pricing: {llama3: {prompt: 0.001, completion: 0.002}}\n", 1)
}

func apiPost(t *testing.T, ts *httptest.Server, path, body string) (int, map[string]string) {
	t.Helper()
	res, err := ts.Client().Post(ts.URL+path, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	out := map[string]string{}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, out
}

// followTo reads run id's events (from after event last) until one of kind
// kind with data holding want, and returns the id of that event.
func followTo(t *testing.T, ts *httptest.Server, id string, last int, kind, want string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+"/api/runs/"+id+"/events", nil)
	require.NoError(t, err)
	if last > 0 {
		req.Header.Set("Last-Event-ID", strconv.Itoa(last))
	}
	res, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	data := ""
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		data += string(buf[:n])
		for _, block := range strings.Split(data, "\n\n") {
			var evID int
			var ev string
			for _, line := range strings.Split(block, "\n") {
				if v, ok := strings.CutPrefix(line, "id: "); ok {
					evID, _ = strconv.Atoi(v)
				}
				if v, ok := strings.CutPrefix(line, "data: "); ok {
					ev = v
				}
			}
			if strings.Contains(ev, `"kind":"`+kind+`"`) && strings.Contains(ev, want) {
				return evID
			}
		}
		require.NoError(t, err, "the stream ended before a %s event with %s", kind, want)
	}
}

// A run with a human step, started through the API, ends waiting; the
// answer through the API continues it (cogloop answer's code) to ok; a
// second answer, and a wrong kind, are refused. A pause stops a loop at a
// pass boundary with status paused. Both with Redis and without it (the
// checkpoint files under the record directory, as cogloop answer uses).
func TestServeAnswersAndPausesThroughTheSteeringAPI(t *testing.T) {
	t.Run("redis", func(t *testing.T) { testServeSteering(t, true) })
	t.Run("files", func(t *testing.T) { testServeSteering(t, false) })
}

func testServeSteering(t *testing.T, withRedis bool) {
	ts, recs := steerFixture(t, withRedis)
	code, out := apiPost(t, ts, "/api/runs", `{"workflow":"review.yaml","input":"loops"}`)
	require.Equal(t, http.StatusCreated, code, out)
	id := out["run_id"]
	waitEnd := followTo(t, ts, id, 0, "run.end", `"status":"waiting"`)

	code, out = apiPost(t, ts, "/api/runs/"+id+"/answer", `{"kind":"text","text":"no"}`)
	assert.Equal(t, http.StatusBadRequest, code, "a text answer to an approve question: %v", out)
	code, out = apiPost(t, ts, "/api/runs/"+id+"/answer", `{"approved":true}`)
	assert.Equal(t, http.StatusBadRequest, code, "no kind: %v", out)
	code, out = apiPost(t, ts, "/api/runs/"+id+"/answer", `{"kind":"approve","approved":true,"comment":"ship it"}`)
	require.Equal(t, http.StatusAccepted, code, out)
	followTo(t, ts, id, waitEnd, "run.end", `"status":"ok"`)
	code, out = apiPost(t, ts, "/api/runs/"+id+"/answer", `{"kind":"approve","approved":true}`)
	assert.Equal(t, http.StatusConflict, code, "answered already: %v", out)

	rec, err := records.Dir{Path: recs}.Read(id)
	require.NoError(t, err)
	s := rec.Summarize()
	assert.Equal(t, "ok", s.Status)
	assert.Equal(t, "published", s.Response)
	require.Len(t, s.Humans, 1)
	assert.True(t, s.Humans[0].Answered)
	assert.Contains(t, s.Humans[0].By, "cogloop serve")
	if !withRedis {
		_, err := os.Stat(filepath.Join(recs, "checkpoints"))
		require.NoError(t, err, "the run's checkpoints are files under the record directory")
	}

	code, out = apiPost(t, ts, "/api/runs/nope/pause", `{}`)
	assert.Equal(t, http.StatusConflict, code, out)
	code, out = apiPost(t, ts, "/api/runs", `{"workflow":"live.yaml","input":"x"}`)
	require.Equal(t, http.StatusCreated, code, out)
	loop := out["run_id"]
	followTo(t, ts, loop, 0, "loop.pass.start", `"loop_number":1`)
	code, out = apiPost(t, ts, "/api/runs/"+loop+"/pause", `{}`)
	require.Equal(t, http.StatusAccepted, code, out)
	followTo(t, ts, loop, 0, "run.end", `"status":"paused"`)
}

// A finished run forks from its pass 2 through the API (cogloop fork's
// code): the new run records where it came from and keeps pass 1. Forks the
// run refuses (a pass the parent never reached, a workflow whose loops
// differ) are 409s with cogloop's message; a missing pass is a 400.
func TestServeForksARunFromAPass(t *testing.T) {
	ts, recs := steerFixture(t, false)
	code, out := apiPost(t, ts, "/api/runs", `{"workflow":"fast.yaml","input":"recursion"}`)
	require.Equal(t, http.StatusCreated, code, out)
	parent := out["run_id"]
	followTo(t, ts, parent, 0, "run.end", "")
	rec, err := records.Dir{Path: recs}.Read(parent)
	require.NoError(t, err)
	require.Equal(t, "ok", rec.Summarize().Status)

	code, out = apiPost(t, ts, "/api/runs/"+parent+"/fork", `{"pass":"2"}`)
	require.Equal(t, http.StatusCreated, code, out)
	child := out["run_id"]
	require.NotEqual(t, parent, child)
	followTo(t, ts, child, 0, "run.start", `"forked_from"`)
	followTo(t, ts, child, 0, "run.end", "")
	rec, err = records.Dir{Path: recs}.Read(child)
	require.NoError(t, err)
	s := rec.Summarize()
	require.NotNil(t, s.ForkedFrom)
	assert.Equal(t, parent, s.ForkedFrom.Run)
	assert.Contains(t, s.ForkedFrom.Pass, "2")
	assert.Equal(t, "ok", s.Status)
	// The fork keeps how it started (the parent's script here): a fork of
	// the fork runs on it too.
	code, out = apiPost(t, ts, "/api/runs/"+child+"/fork", `{"pass":"3","input":"loops"}`)
	require.Equal(t, http.StatusCreated, code, out)
	followTo(t, ts, out["run_id"], 0, "run.end", "")
	rec, err = records.Dir{Path: recs}.Read(out["run_id"])
	require.NoError(t, err)
	assert.Equal(t, "ok", rec.Summarize().Status, "the fork of a fork runs on the script its parent kept")

	code, out = apiPost(t, ts, "/api/runs/"+parent+"/fork", `{"pass":"9"}`)
	assert.Equal(t, http.StatusConflict, code, out)
	assert.Contains(t, out["error"], "9", "the refusal names the pass")
	code, out = apiPost(t, ts, "/api/runs/"+parent+"/fork", `{"pass":"2","workflow":"review.yaml"}`)
	assert.Equal(t, http.StatusConflict, code, out)
	assert.Contains(t, out["error"], "loop structure changed")
	code, out = apiPost(t, ts, "/api/runs/"+parent+"/fork", `{"input":"x"}`)
	assert.Equal(t, http.StatusBadRequest, code, out)
	code, out = apiPost(t, ts, "/api/runs/"+parent+"/fork", `{"pass":"2","workflow":"../x.yaml"}`)
	assert.Equal(t, http.StatusBadRequest, code, out)
}
