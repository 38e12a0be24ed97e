package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver on loopback: it decodes every
// protobuf ExportTraceServiceRequest and keeps the raw bodies.
type otlpReceiver struct {
	mu       sync.Mutex
	raw      bytes.Buffer
	requests []*coltracepb.ExportTraceServiceRequest
	paths    []string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msg := &coltracepb.ExportTraceServiceRequest{}
	if req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(data, msg) != nil {
		http.Error(w, "want an OTLP protobuf body", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.raw.Write(data)
	r.requests = append(r.requests, msg)
	r.paths = append(r.paths, req.URL.Path)
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out) // the client under test reports a short write itself
}

func attrMap(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := map[string]*commonpb.AnyValue{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

const otelCanary = "sk-otel-canary-5f1e2d3c4b5a6978"

func TestOTLPExportThroughEnv(t *testing.T) {
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	dir := t.TempDir()
	wf := "../../telemetry/testdata/loop_fork.yaml"
	script := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(script, []byte(`
a: ["a says `+otelCanary+`", "a again"]
b: ["b one", "b two"]
scorer: [{text: "SCORE: 0.4", usage: {prompt_tokens: 7, completion_tokens: 2}}, "SCORE: 0.93"]
`), 0o600))
	t.Setenv("OPENAI_API_KEY", otelCanary)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-secret-header="+otelCanary)
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("COGLOOP_OTEL_CONTENT", "1")

	code, out, errs := runCLI(t, "run", wf, "the task", "--script", script)
	require.Equal(t, 0, code, errs)
	assert.NotEmpty(t, out)

	recv.mu.Lock()
	defer recv.mu.Unlock()
	require.NotEmpty(t, recv.requests, "the spans were flushed before exit")
	for _, p := range recv.paths {
		assert.Equal(t, "/v1/traces", p)
	}
	assert.NotContains(t, recv.raw.String(), otelCanary, "no secret in exported data")
	assert.Contains(t, recv.raw.String(), "[REDACTED:OPENAI_API_KEY]", "content is exported, scrubbed")

	type node struct {
		name   string
		parent []byte
		attrs  map[string]*commonpb.AnyValue
	}
	byID := map[string]node{}
	var all []*tracepb.Span
	for _, req := range recv.requests {
		for _, rs := range req.ResourceSpans {
			assert.Equal(t, "cogloop", attrMap(rs.Resource.Attributes)["service.name"].GetStringValue())
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					all = append(all, s)
					byID[string(s.SpanId)] = node{s.Name, s.ParentSpanId, attrMap(s.Attributes)}
				}
			}
		}
	}
	var tree []string
	for _, s := range all {
		p := byID[string(s.ParentSpanId)]
		tree = append(tree, s.Name+" < "+p.name)
	}
	assert.ElementsMatch(t, []string{
		"run traced < ", "loop improve < run traced", "pass 1 < loop improve", "pass 2 < loop improve",
		"agent both < pass 1", "agent both < pass 2",
		"agent a < agent both", "agent a < agent both", "agent b < agent both", "agent b < agent both",
		"agent gather < pass 1", "agent gather < pass 2", "agent scorer < pass 1", "agent scorer < pass 2",
		"chat gpt-4o-mini < agent a", "chat gpt-4o-mini < agent a", "chat gpt-4o-mini < agent b",
		"chat gpt-4o-mini < agent b", "chat gpt-4o-mini < agent scorer", "chat gpt-4o-mini < agent scorer",
	}, tree)
	for _, s := range all {
		a := attrMap(s.Attributes)
		switch s.Name {
		case "loop improve":
			assert.Equal(t, "threshold", a["cogloop.loop.stop_reason"].GetStringValue())
			assert.InDelta(t, 0.93, a["cogloop.loop.score"].GetDoubleValue(), 1e-9)
		case "chat gpt-4o-mini":
			assert.Equal(t, "chat", a["gen_ai.operation.name"].GetStringValue())
			assert.Equal(t, "gpt-4o-mini", a["gen_ai.request.model"].GetStringValue())
			if a["gen_ai.completion"].GetStringValue() == "SCORE: 0.4" {
				assert.Equal(t, int64(7), a["gen_ai.usage.input_tokens"].GetIntValue())
				assert.Equal(t, int64(2), a["gen_ai.usage.output_tokens"].GetIntValue())
			}
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, s.Kind)
		}
	}
}

func TestOTLPUnsupportedProtocolIsAUsageError(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	code, _, errs := runCLI(t, "run", hello, "topic", "--script", helloScript)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported")
}

func TestOTLPExportFailureIsReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "collector down", http.StatusBadRequest)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	code, out, errs := runCLI(t, "run", hello, "topic", "--script", helloScript)
	assert.Equal(t, exitOK, code, "an export failure does not fail the run")
	assert.Contains(t, out, "the loop learns its way.")
	assert.Equal(t, 1, strings.Count(errs, "cogloop: warning: export traces:"), errs)
	assert.Contains(t, errs, "400", "the warning says what the collector answered")
}
