package cogloop_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
)

// A traced run's agents run in a context carrying their span, and a
// provider's HTTP call carries that span's traceparent.
func TestAgentsRunInTheirSpanAndProviderCallsPropagateIt(t *testing.T) {
	var mu sync.Mutex
	var traceparent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		traceparent = r.Header.Get("Traceparent")
		mu.Unlock()
		agenttest.WriteChatReply(w, "written", 3, 2)
	}))
	defer srv.Close()

	var seen trace.SpanContext
	reg := cogloop.NewRegistry()
	reg.MustRegister("peek", func(*agents.Builder, *load.Config) (agents.Agent, error) {
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			seen = trace.SpanContextFromContext(ctx)
			return agents.Output{Response: "peeked"}, nil
		}), nil
	})
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: traced, agents: [peek, writer]}
agents:
  - {id: peek, type: peek}
  - {id: writer, type: openai-answer, model: gpt-x, model_url: `+srv.URL+`/v1, api_key_env: TEST_KEY, prompt: hi}
`), "traced.yaml", cogloop.WithRegistry(reg))
	require.NoError(t, err)
	t.Setenv("TEST_KEY", "k")

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	_, err = wf.Run(context.Background(), "x", cogloop.WithTracerProvider(tp))
	require.NoError(t, err)

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	require.Contains(t, spans, "agent peek")
	require.Contains(t, spans, "agent writer")
	assert.Equal(t, spans["agent peek"].SpanContext().SpanID(), seen.SpanID(), "the Go agent ran in its span")
	assert.Equal(t, spans["agent peek"].SpanContext().TraceID(), seen.TraceID())

	writer := spans["agent writer"].SpanContext()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, "00-"+writer.TraceID().String()+"-"+writer.SpanID().String()+"-01", traceparent)
}

// Without tracing, no traceparent is sent.
func TestNoTraceparentWithoutTracing(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Traceparent"))
		agenttest.WriteChatReply(w, "written", 3, 2)
	}))
	defer srv.Close()
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: plain, agents: [writer]}
agents:
  - {id: writer, type: openai-answer, model: gpt-x, model_url: `+srv.URL+`/v1, api_key_env: TEST_KEY, prompt: hi}
`), "plain.yaml", cogloop.WithEnv(mapEnv(map[string]string{"TEST_KEY": "k"})))
	require.NoError(t, err)
	_, err = wf.Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, []string{""}, got)
}
