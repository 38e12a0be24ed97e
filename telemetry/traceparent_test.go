package telemetry_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/cogloop/cogloop/telemetry"
)

// InjectTraceContext writes exactly the headers OpenTelemetry's W3C
// propagator writes, for every kind of span context.
func TestInjectTraceContextIsOTelsPropagator(t *testing.T) {
	tid := trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	sid := trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	ts, err := trace.ParseTraceState("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
	require.NoError(t, err)
	cases := map[string]trace.SpanContextConfig{
		"sampled":              {TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled},
		"not sampled":          {TraceID: tid, SpanID: sid},
		"random and sampled":   {TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled | trace.FlagsRandom},
		"undefined flags drop": {TraceID: tid, SpanID: sid, TraceFlags: 0xfd},
		"with tracestate":      {TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts},
		"remote":               {TraceID: tid, SpanID: sid, Remote: true},
		"no span id (invalid)": {TraceID: tid},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(cfg))
			want := http.Header{}
			propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(want))
			got := http.Header{}
			telemetry.InjectTraceContext(ctx, got)
			assert.Equal(t, want, got)
			if cfg.SpanID.IsValid() {
				assert.NotEmpty(t, got.Get("traceparent"), "a valid span context sends a traceparent")
			}
		})
	}
	got := http.Header{}
	telemetry.InjectTraceContext(context.Background(), got)
	assert.Empty(t, got, "no span, no headers")
}
