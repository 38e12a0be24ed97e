package telemetry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
)

const canary = "sk-canary-0123456789abcdef"

const loopReplies = `
a: [{error: boom}, "a second"]
b: ["b first", "b second"]
scorer:
  - {text: "SCORE: 0.5", usage: {prompt_tokens: 11, completion_tokens: 3}}
  - {text: "SCORE: 0.95 key ` + canary + `", usage: {prompt_tokens: 12, completion_tokens: 4}}
`

// run runs the loop workflow with its spans going to an in-memory exporter.
func run(t *testing.T, opts ...cogloop.RunOption) tracetest.SpanStubs {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", canary)
	wf, err := cogloop.Load("testdata/loop_fork.yaml")
	require.NoError(t, err)
	script, err := scripted.Parse([]byte(loopReplies), "replies.yaml")
	require.NoError(t, err)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	opts = append(opts, cogloop.WithTracerProvider(tp), cogloop.WithModels(script))
	_, err = wf.Run(context.Background(), "the task", opts...)
	require.NoError(t, err)
	spans := exp.GetSpans() // before Shutdown, which empties the exporter
	require.NoError(t, tp.Shutdown(context.Background()))
	return spans
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestSpanTreeOfALoopWithAFork(t *testing.T) {
	spans := run(t)
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
	}
	parentName := func(s tracetest.SpanStub) string {
		if !s.Parent.IsValid() {
			return ""
		}
		p, ok := byID[s.Parent.SpanID().String()]
		require.True(t, ok, "the parent of %q was exported", s.Name)
		require.Equal(t, s.SpanContext.TraceID(), p.SpanContext.TraceID())
		if pass, ok := attrs(p)["cogloop.loop.pass"]; ok {
			return p.Name + "#" + pass.String()
		}
		return p.Name
	}
	// Every span as "name < parent", with the pass a span sits in.
	var tree []string
	for _, s := range spans {
		tree = append(tree, s.Name+" < "+parentName(s))
	}
	assert.ElementsMatch(t, []string{
		"run traced < ",
		"loop improve < run traced",
		"pass 1 < loop improve", "pass 2 < loop improve",
		"agent both < pass 1#1", "agent both < pass 2#2",
		"agent a < agent both", "agent a < agent both",
		"agent b < agent both", "agent b < agent both",
		"agent gather < pass 1#1", "agent gather < pass 2#2",
		"agent scorer < pass 1#1", "agent scorer < pass 2#2",
		"chat gpt-4o-mini < agent a", "chat gpt-4o-mini < agent a",
		"chat gpt-4o-mini < agent b", "chat gpt-4o-mini < agent b",
		"chat gpt-4o-mini < agent scorer", "chat gpt-4o-mini < agent scorer",
	}, tree)

	var loop, pass2, scorerCall tracetest.SpanStub
	var failedA, failedCall int
	for _, s := range spans {
		a := attrs(s)
		switch {
		case s.Name == "loop improve":
			loop = s
		case s.Name == "pass 2":
			pass2 = s
		case s.Name == "chat gpt-4o-mini" && a["cogloop.agent.id"].AsString() == "scorer" && a["gen_ai.usage.output_tokens"].AsInt64() == 4:
			scorerCall = s
		}
		if s.Status.Code == codes.Error {
			assert.Contains(t, s.Status.Description, "boom", s.Name)
			switch s.Name {
			case "agent a":
				failedA++
			case "chat gpt-4o-mini":
				failedCall++
			}
		}
		if _, ok := a["gen_ai.usage.input_tokens"]; ok {
			assert.True(t, strings.HasPrefix(s.Name, "chat "), "gen_ai.usage only on model calls, not on %s", s.Name)
		}
		for _, kv := range s.Attributes {
			assert.NotContains(t, kv.Value.String(), canary, "%s %s", s.Name, kv.Key)
			assert.NotEqual(t, "cogloop.prompt", string(kv.Key), "content is off by default")
			assert.NotEqual(t, "gen_ai.prompt", string(kv.Key), "content is off by default")
		}
	}
	assert.Equal(t, 1, failedA, "the failed branch agent's span has status Error")
	assert.Equal(t, 1, failedCall, "the failed model call's span has status Error")

	la := attrs(loop)
	assert.Equal(t, "threshold", la["cogloop.loop.stop_reason"].AsString())
	assert.InDelta(t, 0.95, la["cogloop.loop.score"].AsFloat64(), 1e-9)
	assert.Equal(t, int64(2), la["cogloop.loop.passes"].AsInt64())
	assert.Equal(t, int64(3), la["cogloop.loop.max_loops"].AsInt64())
	assert.InDelta(t, 0.9, la["cogloop.loop.threshold"].AsFloat64(), 1e-9)
	assert.Equal(t, int64(23), la["cogloop.usage.input_tokens"].AsInt64(), "the loop's usage: both scorer calls")
	pa := attrs(pass2)
	assert.Equal(t, int64(2), pa["cogloop.loop.pass"].AsInt64())
	assert.InDelta(t, 0.95, pa["cogloop.loop.score"].AsFloat64(), 1e-9)

	require.NotEmpty(t, scorerCall.Name, "the scorer's second call has a span")
	ca := attrs(scorerCall)
	assert.Equal(t, "chat", ca["gen_ai.operation.name"].AsString())
	assert.Equal(t, "scripted", ca["gen_ai.provider.name"].AsString())
	assert.Equal(t, "scripted", ca["gen_ai.system"].AsString())
	assert.Equal(t, "gpt-4o-mini", ca["gen_ai.request.model"].AsString())
	assert.Equal(t, int64(12), ca["gen_ai.usage.input_tokens"].AsInt64())
	assert.False(t, scorerCall.StartTime.After(scorerCall.EndTime))
	for _, s := range spans {
		if s.Parent.IsValid() {
			p := byID[s.Parent.SpanID().String()]
			assert.False(t, s.StartTime.Before(p.StartTime), "%s starts within %s", s.Name, p.Name)
			assert.False(t, s.EndTime.After(p.EndTime), "%s ends within %s", s.Name, p.Name)
		}
	}
}

func TestContentOnlyWhenAsked(t *testing.T) {
	spans := run(t, cogloop.WithTraceContent())
	var prompts, completions int
	for _, s := range spans {
		a := attrs(s)
		if v, ok := a["gen_ai.prompt"]; ok {
			prompts++
			assert.True(t, strings.HasPrefix(v.AsString(), "A:") || strings.HasPrefix(v.AsString(), "B:") ||
				strings.HasPrefix(v.AsString(), "Rate"), v.AsString())
		}
		if v, ok := a["gen_ai.completion"]; ok && strings.HasPrefix(v.AsString(), "SCORE: 0.95") {
			completions++
			assert.Equal(t, "SCORE: 0.95 key [REDACTED:OPENAI_API_KEY]", v.AsString())
		}
		for _, kv := range s.Attributes {
			assert.NotContains(t, kv.Value.String(), canary, "%s %s", s.Name, kv.Key)
		}
	}
	assert.Equal(t, 6, prompts, "every model call carries its prompt")
	assert.Equal(t, 1, completions)
}
