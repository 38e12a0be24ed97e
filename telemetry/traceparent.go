package telemetry

import (
	"context"
	"encoding/hex"

	"go.opentelemetry.io/otel/trace"
)

// InjectTraceContext sets the W3C trace context headers (traceparent,
// tracestate) of the span in ctx on h (an http.Header: the keys are in its
// canonical form); nothing without a valid span. It writes what
// OpenTelemetry's propagation.TraceContext injects (a test holds them
// equal) without importing that package, which imports net/http: a program
// that traces but makes no HTTP request links no HTTP client.
func InjectTraceContext(ctx context.Context, h map[string][]string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return
	}
	if ts := sc.TraceState().String(); ts != "" {
		h["Tracestate"] = []string{ts}
	}
	// Only the flags the specification defines: sampled and random.
	flags := sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom)
	tid, sid := sc.TraceID(), sc.SpanID()
	b := make([]byte, 0, 55)
	b = append(b, "00-"...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, sid[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, []byte{byte(flags)})
	h["Traceparent"] = []string{string(b)}
}
