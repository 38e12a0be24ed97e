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

	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/cogloop/cogloop/records"
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
		"live.yaml": string(data), "live.replies.yaml": liveReplies} {
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
