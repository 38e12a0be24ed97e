// Package telemetry turns a cogloop run's event stream into OpenTelemetry
// spans, through the OpenTelemetry API only; with app/otlp (the OTLP
// exporter) it is the only code that imports OpenTelemetry.
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
// The OTLP exporter lives in package app/otlp, which only the CLI (and
// programs that want it) import: this package needs the OpenTelemetry API
// alone, so embedding cogloop does not link the SDK, protobuf or gRPC types.
//
// # Concurrency
//
// An [Observer] is safe for concurrent use, as event observers must be; it
// serves one run.
//
// # Imports
//
// It imports agents/event, agents/fault and internal/pyvalue.
package telemetry
