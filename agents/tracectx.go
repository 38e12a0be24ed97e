package agents

import (
	"context"
	"net/http"
)

type requestHeadersKey struct{}

// WithRequestHeaders returns ctx carrying add, which sets headers on the HTTP
// requests made under ctx by agents that call out (the model providers): the
// trace context of the current span (traceparent), set by the tracing
// observer. Provider clients call [AddRequestHeaders].
func WithRequestHeaders(ctx context.Context, add func(http.Header)) context.Context {
	return context.WithValue(ctx, requestHeadersKey{}, add)
}

// AddRequestHeaders sets on h the headers ctx carries ([WithRequestHeaders]);
// it reports whether there were any.
func AddRequestHeaders(ctx context.Context, h http.Header) bool {
	add, ok := ctx.Value(requestHeadersKey{}).(func(http.Header))
	if ok && add != nil {
		add(h)
	}
	return ok && add != nil
}
