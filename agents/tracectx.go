package agents

import "context"

type requestHeadersKey struct{}

// WithRequestHeaders returns ctx carrying add, which sets headers on the HTTP
// requests made under ctx by agents that call out (the model providers): the
// trace context of the current span (traceparent), set by the tracing
// observer. Provider clients call [AddRequestHeaders].
//
// The headers are a plain map (an http.Header converts to one and back) so
// that this package, which every program built on cogloop links, does not
// import net/http: that import alone links Go's HTTP client and TLS stack
// (about 2 MB of binary) into programs that never make a request.
func WithRequestHeaders(ctx context.Context, add func(map[string][]string)) context.Context {
	return context.WithValue(ctx, requestHeadersKey{}, add)
}

// AddRequestHeaders sets on h (an http.Header) the headers ctx carries
// ([WithRequestHeaders]); it reports whether there were any.
func AddRequestHeaders(ctx context.Context, h map[string][]string) bool {
	add, ok := ctx.Value(requestHeadersKey{}).(func(map[string][]string))
	if ok && add != nil {
		add(h)
	}
	return ok && add != nil
}
