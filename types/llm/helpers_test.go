package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/types/llm"
)

// request is one request a fake server received.
type request struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// server is a loopback server that answers with respond(n, …) for its n-th
// (1-based) request and records every request.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

type respondFunc func(n int, w http.ResponseWriter, r *http.Request, body map[string]any)

func newServer(t *testing.T, respond respondFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.reqs = append(s.reqs, request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: string(raw)})
		n := len(s.reqs)
		s.mu.Unlock()
		respond(n, w, r, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) Requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// OpenAI chat-completions wire format.

func openAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}

// Ollama /api/chat wire format: NDJSON chunks unless the request says
// "stream": false (langchaingo omits the field, so a real server streams).
func ollamaOK(w http.ResponseWriter, body map[string]any, text string, promptEval, eval int) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	stream, set := body["stream"].(bool)
	model, _ := body["model"].(string)
	if set && !stream {
		fmt.Fprintf(w, `{"model":%q,"created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":%q},"done":true,"prompt_eval_count":%d,"eval_count":%d}`+"\n", model, text, promptEval, eval)
		return
	}
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		fmt.Fprintf(w, `{"model":%q,"created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", model, part)
	}
	fmt.Fprintf(w, `{"model":%q,"created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":%d,"eval_count":%d}`+"\n", model, promptEval, eval)
}

func ollamaError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": msg})
	_, _ = w.Write(b)
}

// block waits for the client to go away (or 10s), for slow-reply tests.
func block(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// fakeSleep records the backoff waits and returns at once.
type fakeSleep = agenttest.Sleeper

// recorder collects events and renders them as JSON for secret checks.
type recorder struct{ agenttest.Recorder }

func (r *recorder) JSON(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(r.Events())
	require.NoError(t, err)
	return string(b)
}

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// build builds the agent defined by src (one YAML mapping) as the workflow
// builder would, with the LLM types registered with o.
func build(t *testing.T, o llm.Options, src string) (agents.Agent, *load.Problems) {
	t.Helper()
	reg := agents.NewRegistry()
	llm.RegisterWith(reg, o)
	return agenttest.Build(t, reg, src, nil)
}

func mustBuild(t *testing.T, o llm.Options, src string) agents.Agent {
	t.Helper()
	a, probs := build(t, o, src)
	require.NoError(t, probs.Err())
	require.NotNil(t, a)
	return a
}

func input(rec *recorder) agents.Input {
	in := agents.Input{Value: "the topic", Path: "x"}
	if rec != nil {
		in.Run = &agents.Run{ID: "run-1", Observe: rec.Observe}
	}
	return in
}

// chain returns the text of err and of every error it wraps.
func chain(err error) string {
	var b strings.Builder
	for err != nil {
		b.WriteString(err.Error())
		fmt.Fprintf(&b, " %+v %#v\n", err, err)
		err = errors.Unwrap(err)
	}
	return b.String()
}
