package cogloop

import (
	"context"

	"github.com/cogloop/cogloop/agents"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/telemetry"
)

// tracingOptions are the run options about watching a run as it happens.
type tracingOptions struct {
	tp      telemetry.TracerProvider
	content bool
	deltas  bool
	calls   bool
}

// WithTracerProvider records the run as OpenTelemetry spans of tp (run, loop,
// pass, agent and model call; see package telemetry), under the span in the
// run's context if there is one. Prompts and replies are left out unless
// [WithTraceContent] is given too. The caller owns tp: shutting it down
// flushes the spans.
func WithTracerProvider(tp telemetry.TracerProvider) RunOption {
	return func(o *runOptions) { o.tracing.tp = tp }
}

// WithTraceContent records prompts and replies (scrubbed of the run's
// secrets) as span attributes, with [WithTracerProvider].
func WithTraceContent() RunOption {
	return func(o *runOptions) { o.tracing.content = true }
}

// WithDeltas asks LLM agents to stream their replies where the provider can,
// and sends the text as it arrives to the observer as agent.delta events
// (coalesced, at most one per 50 ms or 256 bytes per call, scrubbed of the
// run's secrets). Without it models are called without streaming.
func WithDeltas() RunOption {
	return func(o *runOptions) { o.tracing.deltas = true }
}

// WithModelCalls sends a model.call event per model call (attempt) to the
// observer: the rendered request (bounded, with its SHA-256) and the reply,
// scrubbed of the run's secrets. Run records keep them; `cogloop script` and
// `--replay` read them back.
func WithModelCalls() RunOption {
	return func(o *runOptions) { o.tracing.calls = true }
}

// observer is next, preceded by the span recorder when tracing is on; then
// spanContext puts an agent's span in the context it runs in, with the
// trace context its provider calls send (traceparent).
func (t tracingOptions) observer(ctx context.Context, next event.Observer) (observe event.Observer, spanContext func(context.Context, string) context.Context) {
	if t.tp == nil {
		return next, nil
	}
	spans, inSpan := telemetry.Tracer(ctx, t.tp, telemetry.Options{Content: t.content})
	spanContext = func(ctx context.Context, node string) context.Context {
		ctx = inSpan(ctx, node)
		return agents.WithRequestHeaders(ctx, func(h map[string][]string) { telemetry.InjectTraceContext(ctx, h) })
	}
	return chain(spans, next), spanContext
}
