package search_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/types/llm"
	"github.com/cogloop/cogloop/types/search"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

var wantFixture = []search.Result{
	{Title: "Effective Go - The Go Programming Language", URL: "https://go.dev/doc/effective_go",
		Snippet: "A for loop in Go has three forms, only one of which has semicolons."},
	{Title: "Go by Example: For", URL: "https://gobyexample.com/for", Snippet: "for is Go's only looping construct."},
	{Title: "Third result", URL: "https://example.org/third", Snippet: "The third snippet."},
}

func TestParse(t *testing.T) {
	got, err := search.Parse(strings.NewReader(string(fixture(t, "results.html"))), 0)
	require.NoError(t, err)
	assert.Equal(t, wantFixture, got, "organic results in order, the ad skipped, redirect links resolved")

	got, err = search.Parse(strings.NewReader(string(fixture(t, "results.html"))), 2)
	require.NoError(t, err)
	assert.Equal(t, wantFixture[:2], got)

	got, err = search.Parse(strings.NewReader(string(fixture(t, "empty.html"))), 0)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// server serves pages in order (the last one again when they run out) and
// counts the requests; each request must be DuckDuckGo's form post.
type server struct {
	t      *testing.T
	pages  []func(w http.ResponseWriter)
	calls  atomic.Int32
	mu     sync.Mutex
	querys []string
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1))
	if r.Method != http.MethodPost || r.URL.Path != "/html/" || r.UserAgent() == "" {
		http.Error(w, "want POST /html/ with a user agent", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.querys = append(s.querys, r.PostFormValue("q"))
	s.mu.Unlock()
	s.pages[min(n, len(s.pages))-1](w)
}

func page(html []byte) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(html)
	}
}

func status(code int) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) { http.Error(w, "no", code) }
}

func TestDuckDuckGoPostsTheFormAndParses(t *testing.T) {
	s := &server{t: t, pages: []func(http.ResponseWriter){page(fixture(t, "results.html"))}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	d := &search.DuckDuckGo{Endpoint: srv.URL + "/html/"}
	got, err := d.Search(context.Background(), "go loops & more", 5)
	require.NoError(t, err)
	assert.Equal(t, wantFixture, got)
	assert.Equal(t, []string{"go loops & more"}, s.querys)
}

func TestDuckDuckGoReadsAtMostMaxBytes(t *testing.T) {
	html := fixture(t, "results.html")
	cutAt := strings.Index(string(html), "Go by Example")
	require.Positive(t, cutAt)
	s := &server{t: t, pages: []func(http.ResponseWriter){page(html)}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	d := &search.DuckDuckGo{Endpoint: srv.URL + "/html/", MaxBytes: int64(cutAt)}
	got, err := d.Search(context.Background(), "q", 5)
	require.NoError(t, err)
	assert.Equal(t, wantFixture[:1], got, "the page is cut before the second result")
}

func TestDuckDuckGoStatusIsACallError(t *testing.T) {
	for _, tc := range []struct {
		code  int
		class retry.Class
	}{{503, retry.ClassServerError}, {429, retry.ClassRateLimit}, {202, retry.ClassRateLimit}, {403, retry.ClassPermanent}} {
		s := &server{t: t, pages: []func(http.ResponseWriter){status(tc.code)}}
		srv := httptest.NewServer(s)
		d := &search.DuckDuckGo{Endpoint: srv.URL + "/html/"}
		_, err := d.Search(context.Background(), "q", 5)
		srv.Close()
		require.Error(t, err)
		assert.Contains(t, err.Error(), srv.URL+"/html/")
		assert.Equal(t, tc.class, retry.Classify(err), "HTTP %d", tc.code)
	}
}

func registry(o search.Options) *agents.Registry {
	r := agents.NewRegistry()
	llm.Register(r)
	search.RegisterWith(r, o)
	return r
}

func load(t *testing.T, o search.Options, src string) *cogloop.Workflow {
	t.Helper()
	wf, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(registry(o)))
	require.NoError(t, err)
	require.Empty(t, wf.Warnings)
	return wf
}

const oneSearch = `
orchestrator: {id: s, strategy: sequential, agents: [web_search]}
agents:
  - id: web_search
    type: duckduckgo
    prompt: "{{ input }} loops"
`

func TestAgentUnreachableNamesTheEndpoint(t *testing.T) {
	ep := "http://" + nettest.ClosedAddr(t) + "/html/"
	sleep := &agenttest.Sleeper{}
	wf := load(t, search.Options{Endpoint: ep, Sleep: sleep.Sleep}, oneSearch)
	res, err := wf.Run(context.Background(), "go")
	require.ErrorIs(t, err, cogloop.ErrRunFailed)
	msg := res.Failed()["web_search"]
	assert.Contains(t, msg, "search DuckDuckGo at "+ep)
	assert.Contains(t, msg, "connection refused")
	assert.Contains(t, msg, "gave up after 4 attempts", "a refused connection is a server error, retried 3 times")
}

func TestAgentRetriesThenAnswersInOrKaShape(t *testing.T) {
	s := &server{t: t, pages: []func(http.ResponseWriter){status(503), page(fixture(t, "results.html"))}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	sleep := &agenttest.Sleeper{}
	wf := load(t, search.Options{Endpoint: srv.URL + "/html/", Sleep: sleep.Sleep}, oneSearch)
	rec := &agenttest.Recorder{}
	res, err := wf.Run(context.Background(), "go", cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.calls.Load())
	assert.Equal(t, []string{"go loops", "go loops"}, s.querys)
	retries := 0
	for _, e := range rec.Events() {
		if e.Kind == event.AgentRetry {
			retries++
		}
	}
	assert.Equal(t, 1, retries)
	out, ok := res.Outputs.Get("web_search")
	require.True(t, ok)
	m := out.Map()
	snippets := []any{wantFixture[0].Snippet, wantFixture[1].Snippet, wantFixture[2].Snippet}
	assert.Equal(t, snippets, m["response"])
	assert.Equal(t, snippets, m["result"])
	assert.Equal(t, "go loops", m["query"])
	assert.Equal(t, 3, m["num_results"])
	assert.Equal(t, map[string]any{"title": wantFixture[1].Title, "url": wantFixture[1].URL, "snippet": wantFixture[1].Snippet},
		m["results"].([]any)[1])
}

func TestAgentTimeoutBoundsEachAttempt(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	wf := load(t, search.Options{Endpoint: srv.URL + "/html/"}, `
orchestrator: {id: s, strategy: sequential, agents: [web_search]}
agents:
  - {id: web_search, type: duckduckgo, prompt: "{{ input }}", timeout: 20ms, retry: none}
`)
	res, err := wf.Run(context.Background(), "go")
	require.Error(t, err)
	assert.Contains(t, res.Failed()["web_search"], "no answer within the agent's timeout of 20ms")
}

func TestScriptedRepliesAnswerOffline(t *testing.T) {
	ep := "http://" + nettest.ClosedAddr(t) + "/html/"
	wf := load(t, search.Options{Endpoint: ep}, `
orchestrator: {id: s, strategy: sequential, agents: [a, b, c]}
agents:
  - {id: a, type: duckduckgo, prompt: "{{ input }}"}
  - {id: b, type: duckduckgo, prompt: "{{ input }}", max_results: 1}
  - {id: c, type: duckduckgo, prompt: "{{ input }}"}
`)
	script, err := scripted.Parse([]byte(`
a: ['[{"title": "T", "url": "https://x.example", "snippet": "S"}, "plain"]']
b: ["- one\n- two"]
c: ["just text"]
`), "script.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "q", cogloop.WithModels(script))
	require.NoError(t, err)
	get := func(id string) map[string]any {
		o, ok := res.Outputs.Get(id)
		require.True(t, ok)
		return o.Map()
	}
	assert.Equal(t, []any{"S", "plain"}, get("a")["response"])
	assert.Equal(t, map[string]any{"title": "T", "url": "https://x.example", "snippet": "S"}, get("a")["results"].([]any)[0])
	assert.Equal(t, []any{"one"}, get("b")["response"])
	assert.Equal(t, []any{"just text"}, get("c")["response"])
}

func TestLoadErrors(t *testing.T) {
	_, err := cogloop.Parse([]byte(`
orchestrator: {id: s, strategy: sequential, agents: [w]}
agents:
  - id: w
    type: duckduckgo
    max_results: 0
    timeout: soon
    promt: "{{ input }}"
`), "wf.yaml", cogloop.WithRegistry(registry(search.Options{})))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "wf.yaml:6:5")
	assert.Contains(t, msg, "max_results must be between 1 and 50")
	assert.Contains(t, msg, "wf.yaml:7:5")
	assert.Contains(t, msg, `wf.yaml:8:5`)
	assert.Contains(t, msg, `did you mean "prompt"`)

	wf, err := cogloop.Parse([]byte(`
orchestrator: {id: s, strategy: sequential, agents: [w]}
agents:
  - {id: w, type: duckduckgo, prompt: "{{ input }}", params: {max_results: 3}}
`), "wf.yaml", cogloop.WithRegistry(registry(search.Options{})))
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Contains(t, wf.Warnings[0].Error(), "params is accepted for OrKa compatibility and ignored")
}
