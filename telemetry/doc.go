// Package telemetry turns a cogloop run's event stream into OpenTelemetry
// spans, and sets up the OTLP exporter the CLI uses. It is the only package
// that imports OpenTelemetry.
//
// # Spans
//
// [Observer] builds, from the events of one run, a span tree:
//
//	run <workflow>
//	└── agent <id>            (every agent; a loop is "loop <id>")
//	    └── pass <n>          (one loop iteration)
//	        └── agent <id>
//	            └── chat <model>   (one model call, one attempt)
//
// Parents are found by the events' node paths ("improve › iteration 2 ›
// scorer"), under a mutex, so fork branches running at once nest correctly.
// Model-call spans follow the GenAI semantic conventions (gen_ai.operation.name
// "chat", gen_ai.provider.name and gen_ai.system, gen_ai.request.model,
// gen_ai.usage.input_tokens, gen_ai.usage.output_tokens); loop and pass spans
// carry cogloop.loop.pass, cogloop.loop.score and cogloop.loop.stop_reason. A
// failure sets the span's status to Error with its message. Prompts and replies
// become attributes only with [Options].Content; they are scrubbed of the run's
// secrets before they reach any event, and no header or key is ever recorded.
//
// # Exporter
//
// [FromEnv] reads the standard OTEL_* variables: tracing is on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, or
// OTEL_TRACES_EXPORTER is otlp (OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED
// turn it off). Spans go over OTLP HTTP/protobuf (the SDK's otlptracehttp
// exporter, which reads the endpoint, headers, timeout and compression
// variables itself) through a batching processor; [Tracing.Shutdown] flushes.
//
// # Concurrency
//
// An [Observer] is safe for concurrent use, as event observers must be; it
// serves one run.
//
// # Imports
//
// It imports agents/event, agents/fault and internal/values.
package telemetry
