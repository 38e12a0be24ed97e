package serve_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/serve"
)

// A run started through the API streams its events from the first, numbered
// 1, 2, …, and ends ok; the run and the list say so.
func TestStartRunAndFollowItsEvents(t *testing.T) {
	_, ts := startingServer(t)
	id := startRun(t, ts, "nested/workflow.yaml", "Explain recursion")
	evs := stream(t, get(t, ts, "/api/runs/"+id+"/events"), untilRunEnd)
	require.NotEmpty(t, evs)
	assert.Equal(t, event.RunStart, evs[0].Kind)
	assert.Equal(t, event.RunEnd, evs[len(evs)-1].Kind)
	for i, e := range evs {
		assert.Equal(t, i+1, e.ID, "event ids count the record's events")
	}

	res := get(t, ts, "/api/runs/"+id)
	require.Equal(t, http.StatusOK, res.StatusCode)
	sum := decode[records.Summary](t, res)
	assert.Equal(t, "ok", sum.Status)
	assert.Equal(t, id, sum.RunID)
	require.Len(t, sum.Loops, 1)
	assert.Equal(t, 1, sum.Loops[0].LoopsCompleted)

	list := decode[struct{ Runs []serve.RunItem }](t, get(t, ts, "/api/runs"))
	require.Len(t, list.Runs, 1)
	assert.Equal(t, id, list.Runs[0].RunID)
	assert.Equal(t, "ok", list.Runs[0].Status)
	assert.Equal(t, "quality-workflow", list.Runs[0].Workflow)
	assert.Equal(t, 1, list.Runs[0].Passes)
	require.NotNil(t, list.Runs[0].Score)
	assert.InDelta(t, 0.95, *list.Runs[0].Score, 1e-9)

	// filters
	none := decode[struct{ Runs []serve.RunItem }](t, get(t, ts, "/api/runs?status=failed"))
	assert.Empty(t, none.Runs)
	some := decode[struct{ Runs []serve.RunItem }](t, get(t, ts, "/api/runs?workflow=quality-workflow&limit=5"))
	assert.Len(t, some.Runs, 1)
}

// Reconnecting with Last-Event-ID N gives the events after N, the same ones.
func TestEventsResumeAfterLastEventID(t *testing.T) {
	_, ts := startingServer(t)
	id := startRun(t, ts, "quality.yaml", "Explain recursion")
	all := stream(t, get(t, ts, "/api/runs/"+id+"/events"), untilRunEnd)
	require.Greater(t, len(all), 8)
	for _, last := range []int{1, 5, len(all) - 1} {
		rest := stream(t, get(t, ts, "/api/runs/"+id+"/events", "Last-Event-ID", strconv.Itoa(last)), untilRunEnd)
		assert.Equal(t, all[last:], rest, "after event %d", last)
	}
}

// A record written by another process is followed as it grows: a client
// connected before an event is written receives it, with the next id; one
// that reconnects mid-run resumes where it was.
func TestEventsFollowARecordWrittenElsewhere(t *testing.T) {
	dir := records.Dir{Path: t.TempDir()}
	_, ts := newServer(t, serve.Config{Records: dir, Poll: 5e6})
	w, _, err := dir.Create("cli-run", false, nil)
	require.NoError(t, err)
	w.Observe(event.Event{Kind: event.RunStart, Node: "wf"})

	res := get(t, ts, "/api/runs/cli-run/events")
	first := stream(t, res, func(sseEvent) bool { return true })
	require.Len(t, first, 1)
	assert.Equal(t, sseEvent{ID: 1, Kind: event.RunStart, Data: first[0].Data}, first[0])

	w.Observe(event.Event{Kind: event.AgentStart, Node: "wf › a"})
	next := stream(t, res, func(sseEvent) bool { return true })
	require.Len(t, next, 1)
	assert.Equal(t, 2, next[0].ID)
	assert.Equal(t, event.AgentStart, next[0].Kind)

	// running: the record has no end and was written just now
	list := decode[struct{ Runs []serve.RunItem }](t, get(t, ts, "/api/runs"))
	require.Len(t, list.Runs, 1)
	assert.Equal(t, "running", list.Runs[0].Status)

	w.Observe(event.Event{Kind: event.AgentEnd, Node: "wf › a", Response: "</script><b>x</b>"})
	w.Observe(event.Event{Kind: event.RunEnd, Node: "wf", Data: map[string]any{"status": "ok"}})
	require.NoError(t, w.Close())
	rest := stream(t, get(t, ts, "/api/runs/cli-run/events", "Last-Event-ID", "2"), untilRunEnd)
	require.Len(t, rest, 2)
	assert.Equal(t, []int{3, 4}, []int{rest[0].ID, rest[1].ID})
	var e event.Event
	require.NoError(t, json.Unmarshal([]byte(rest[0].Data), &e))
	assert.Equal(t, "</script><b>x</b>", e.Response, "the event is the record's, unchanged")
}

func TestBadRequestsAreRefusedWithTheReason(t *testing.T) {
	_, ts := startingServer(t)
	id := startRun(t, ts, "nested/workflow.yaml", "x")
	stream(t, get(t, ts, "/api/runs/"+id+"/events"), untilRunEnd)
	cases := []struct {
		name, method, path, body string
		header                   []string
		code                     int
	}{
		{"unknown run", "GET", "/api/runs/nope", "", nil, http.StatusNotFound},
		{"unknown run's events", "GET", "/api/runs/nope/events", "", nil, http.StatusNotFound},
		{"bad Last-Event-ID", "GET", "/api/runs/" + id + "/events", "", []string{"Last-Event-ID", "x"}, http.StatusBadRequest},
		{"bad limit", "GET", "/api/runs?limit=abc", "", nil, http.StatusBadRequest},
		{"not JSON", "POST", "/api/runs", "workflow=x", nil, http.StatusBadRequest},
		{"unknown field", "POST", "/api/runs", `{"workflow":"quality.yaml","cmd":"x"}`, nil, http.StatusBadRequest},
		{"dot dot", "POST", "/api/runs", `{"workflow":"../workflows/quality.yaml"}`, nil, http.StatusBadRequest},
		{"dot dot inside", "POST", "/api/runs", `{"workflow":"nested/../../api_test.go"}`, nil, http.StatusBadRequest},
		{"absolute", "POST", "/api/runs", `{"workflow":"/etc/passwd"}`, nil, http.StatusBadRequest},
		{"replies are not a workflow", "POST", "/api/runs", `{"workflow":"quality.replies.yaml"}`, nil, http.StatusBadRequest},
		{"missing", "POST", "/api/runs", `{"workflow":"gone.yaml"}`, nil, http.StatusBadRequest},
		{"empty", "POST", "/api/runs", `{}`, nil, http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var res *http.Response
			if tc.method == "GET" {
				res = get(t, ts, tc.path, tc.header...)
			} else {
				res = post(t, ts, tc.path, tc.body, tc.header...)
			}
			assert.Equal(t, tc.code, res.StatusCode)
			body := decode[map[string]string](t, res)
			assert.NotEmpty(t, body["error"])
		})
	}
}

// A symbolic link that leads out of the workflows directory is refused.
func TestWorkflowLinkOutOfTheDirectoryIsRefused(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	data, err := os.ReadFile("testdata/workflows/quality.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.yaml"), data, 0o600))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "link.yaml")))
	dir := records.Dir{Path: t.TempDir()}
	_, ts := newServer(t, serve.Config{Records: dir, Workflows: root, Start: libStart(dir)})
	res := post(t, ts, "/api/runs", `{"workflow":"link.yaml","input":"x"}`)
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	assert.Contains(t, decode[map[string]string](t, res)["error"], "links out of the directory")
}

func TestWorkflowsListsOnlyWorkflows(t *testing.T) {
	_, ts := startingServer(t)
	got := decode[map[string][]string](t, get(t, ts, "/api/workflows"))
	assert.Equal(t, []string{"nested/workflow.yaml", "quality.yaml"}, got["workflows"])
}

func TestWithoutWorkflowsNoRunStarts(t *testing.T) {
	_, ts := newServer(t, serve.Config{})
	res := post(t, ts, "/api/runs", `{"workflow":"quality.yaml"}`)
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, decode[map[string]string](t, res)["error"], "--workflows")
	assert.Empty(t, decode[struct{ Workflows []string }](t, get(t, ts, "/api/workflows")).Workflows)
	assert.Equal(t, http.StatusNotFound, get(t, ts, "/api/queue").StatusCode)
}
