package serve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/serve"
)

// libStart runs a workflow as the CLI does, through the library: scripted
// replies, a record in dir, every event to the request's observer.
func libStart(dir records.Dir) func(context.Context, serve.StartRequest) error {
	return func(ctx context.Context, r serve.StartRequest) error {
		wf, err := cogloop.Load(r.Workflow)
		if err != nil {
			return err
		}
		opts := []cogloop.RunOption{cogloop.WithRunID(r.RunID)}
		if r.Replies != "" {
			data, err := os.ReadFile(r.Replies)
			if err != nil {
				return err
			}
			script, err := scripted.Parse(data, r.Replies)
			if err != nil {
				return err
			}
			opts = append(opts, cogloop.WithModels(script))
		}
		w, _, err := dir.Create(r.RunID, false, nil)
		if err != nil {
			return err
		}
		opts = append(opts, cogloop.WithObserver(func(e event.Event) { w.Observe(e); r.Observe(e) }))
		_, runErr := wf.Run(ctx, r.Input, opts...)
		if err := w.Close(); err != nil {
			return err
		}
		return runErr
	}
}

// newServer serves cfg (its record dir a temporary one unless set) on a
// loopback test server.
func newServer(t *testing.T, cfg serve.Config) (*serve.Server, *httptest.Server) {
	t.Helper()
	if cfg.Records.Path == "" {
		cfg.Records = records.Dir{Path: t.TempDir()}
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	srv, err := serve.New(cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, srv.Close())
	})
	return srv, ts
}

// startingServer can start runs of testdata/workflows.
func startingServer(t *testing.T) (*serve.Server, *httptest.Server) {
	t.Helper()
	dir := records.Dir{Path: t.TempDir()}
	return newServer(t, serve.Config{Records: dir, Workflows: "testdata/workflows", Start: libStart(dir)})
}

func get(t *testing.T, ts *httptest.Server, path string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := ts.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

func post(t *testing.T, ts *httptest.Server, path, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := ts.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Body.Close() })
	return res
}

func decode[T any](t *testing.T, res *http.Response) T {
	t.Helper()
	var v T
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v))
	return v
}

// startRun starts workflow wf with input and returns the run id.
func startRun(t *testing.T, ts *httptest.Server, wf, input string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"workflow": wf, "input": input})
	res := post(t, ts, "/api/runs", string(body))
	require.Equal(t, http.StatusCreated, res.StatusCode)
	out := decode[map[string]string](t, res)
	require.NotEmpty(t, out["run_id"])
	return out["run_id"]
}

// sseEvent is one event of a stream.
type sseEvent struct {
	ID   int
	Kind string
	Data string
}

// stream reads the events of res until stop says so (or the stream ends).
func stream(t *testing.T, res *http.Response, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []sseEvent
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data == "" {
				continue
			}
			var head struct{ Kind string }
			require.NoError(t, json.Unmarshal([]byte(cur.Data), &head))
			cur.Kind = head.Kind
			out = append(out, cur)
			if stop(cur) {
				return out
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			n, err := strconv.Atoi(strings.TrimPrefix(line, "id: "))
			require.NoError(t, err)
			cur.ID = n
		case strings.HasPrefix(line, "data: "):
			cur.Data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func untilRunEnd(e sseEvent) bool { return e.Kind == event.RunEnd }
