package telemetry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
)

// A tool call is an execute_tool span with the GenAI tool attributes, under
// the span of the agent whose model asked for it.
func TestToolCallSpans(t *testing.T) {
	wf, err := cogloop.Load("testdata/tools.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse([]byte("asker:\n  - tool_calls: [{tool: lookup, id: c1, args: {query: pear}}]\n  - done\n"), "r.yaml")
	require.NoError(t, err)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	_, err = wf.Run(context.Background(), "pear", cogloop.WithTracerProvider(tp), cogloop.WithModels(script))
	require.NoError(t, err)
	spans := exp.GetSpans()
	require.NoError(t, tp.Shutdown(context.Background()))

	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	tool, ok := byName["execute_tool lookup"]
	require.True(t, ok, "spans: %v", spans)
	a := attrs(tool)
	assert.Equal(t, "execute_tool", a["gen_ai.operation.name"].AsString())
	assert.Equal(t, "lookup", a["gen_ai.tool.name"].AsString())
	assert.Equal(t, "c1", a["gen_ai.tool.call.id"].AsString())
	assert.EqualValues(t, 1, a["cogloop.tool.round"].AsInt64())
	_, content := a["gen_ai.tool.call.arguments"]
	assert.False(t, content, "arguments only with Options.Content")
	var asker tracetest.SpanStub
	for _, s := range spans {
		if attrs(s)["cogloop.node"].AsString() == "asker" && s.Name != tool.Name && attrs(s)["gen_ai.operation.name"].AsString() == "" {
			asker = s
		}
	}
	assert.Equal(t, asker.SpanContext.SpanID(), tool.Parent.SpanID(), "the tool span is the calling agent's child")
}
