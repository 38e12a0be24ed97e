package otlp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/cogloop/cogloop/telemetry"
)

// Environment variables read by [FromEnv] (the OTLP exporter reads the other
// OTEL_EXPORTER_OTLP_* variables itself).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvTracesExporter = "OTEL_TRACES_EXPORTER"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	// EnvContent set to 1 records prompts and replies in spans.
	EnvContent = "COGLOOP_OTEL_CONTENT"
)

// Tracing is an OTLP exporter set up from the environment.
type Tracing struct {
	// Provider makes the spans; give it to cogloop.WithTracerProvider.
	Provider *sdktrace.TracerProvider
	// Options are the observer options the environment asks for.
	Options telemetry.Options

	warn     func(error)
	mu       sync.Mutex
	reported map[string]bool
}

// Enabled reports whether the environment turns tracing on: an OTLP endpoint
// is set or OTEL_TRACES_EXPORTER names an exporter (otlp), and neither
// OTEL_TRACES_EXPORTER=none nor OTEL_SDK_DISABLED=true turns it off.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(getenv(EnvTracesExporter))) {
	case "":
		return getenv(EnvEndpoint) != "" || getenv(EnvTracesEndpoint) != ""
	case "none":
		return false
	}
	return true // otlp; any other exporter is refused by FromEnv, not ignored
}

// FromEnv sets up OTLP HTTP/protobuf export when [Enabled] says so; it returns
// nil, nil when tracing is off. version is recorded as service.version. Export
// failures, during the run (through OpenTelemetry's global error handler,
// which FromEnv sets) and at [Tracing.Shutdown], go to warn, each distinct
// message once; a nil warn drops them.
func FromEnv(ctx context.Context, getenv func(string) string, version string, warn func(error)) (*Tracing, error) {
	if !Enabled(getenv) {
		return nil, nil
	}
	if v := strings.TrimSpace(getenv(EnvTracesExporter)); v != "" && !strings.EqualFold(v, "otlp") {
		return nil, fmt.Errorf("%s=%s is not supported: cogloop exports traces over otlp only (or none)", EnvTracesExporter, v)
	}
	for _, name := range []string{EnvTracesProtocol, EnvProtocol} {
		if v := strings.TrimSpace(getenv(name)); v != "" && v != "http/protobuf" {
			return nil, fmt.Errorf("%s=%s is not supported: cogloop exports OTLP over http/protobuf; unset it or set http/protobuf", name, v)
		}
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("set up the OTLP trace exporter: %w", err)
	}
	// service.name defaults to cogloop; OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES, read last, win.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("cogloop"), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil && res == nil {
		return nil, fmt.Errorf("read the OpenTelemetry resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t := &Tracing{Provider: tp, Options: telemetry.Options{Content: strings.TrimSpace(getenv(EnvContent)) == "1"},
		warn: warn, reported: map[string]bool{}}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(t.report))
	return t, nil
}

// report passes an export failure to warn, once per message.
func (t *Tracing) report(err error) {
	if err == nil || t.warn == nil {
		return
	}
	t.mu.Lock()
	seen := t.reported[err.Error()]
	t.reported[err.Error()] = true
	t.mu.Unlock()
	if !seen {
		t.warn(fmt.Errorf("export traces: %w", err))
	}
}

// Shutdown exports the spans not yet sent and stops the exporter; ctx bounds
// the wait. A failure is reported (see [FromEnv]) and returned.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	ferr := t.Provider.ForceFlush(ctx)
	t.report(ferr)
	serr := t.Provider.Shutdown(ctx)
	t.report(serr)
	if err := errors.Join(ferr, serr); err != nil {
		return fmt.Errorf("export traces: %w", err)
	}
	return nil
}
