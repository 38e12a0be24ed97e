// Package otlp sets up the OTLP trace exporter the CLI uses, from the standard
// OTEL_* environment variables. It is apart from package telemetry so that a
// program that embeds cogloop links the exporter (the OpenTelemetry SDK,
// protobuf and the OTLP wire types) only when it imports this package: the
// root package and telemetry's span observer need only the OpenTelemetry API.
//
// # Exporter
//
// [FromEnv] reads the standard OTEL_* variables: tracing is on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, or
// OTEL_TRACES_EXPORTER is otlp (OTEL_TRACES_EXPORTER=none and OTEL_SDK_DISABLED
// turn it off). Spans go over OTLP HTTP/protobuf (the SDK's otlptracehttp
// exporter, which reads the endpoint, headers, timeout and compression
// variables itself) through a batching processor; [Tracing.Shutdown] flushes.
// Give [Tracing].Provider to cogloop.WithTracerProvider.
//
// # Imports
//
// It imports telemetry only.
//
// Outside the module it imports the OpenTelemetry SDK and its OTLP HTTP
// exporter; only cmd/cogloop imports it in this module.
package otlp
