package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/app/otlp"
)

// flushTimeout bounds the wait for the last spans to be exported at exit.
const flushTimeout = 10 * time.Second

// tracing is the run's OpenTelemetry export, nil when the environment does not
// turn it on (see package app/otlp).
type tracing struct{ t *otlp.Tracing }

// startTracing sets up the export; its failures are warnings on stderr.
func startTracing(ctx context.Context, stderr io.Writer) (*tracing, error) {
	version := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
	}
	t, err := otlp.FromEnv(ctx, os.Getenv, version, func(err error) {
		fmt.Fprintf(stderr, "cogloop: warning: %v\n", err)
	})
	if err != nil || t == nil {
		return nil, err
	}
	return &tracing{t: t}, nil
}

func (tr *tracing) options() []cogloop.RunOption {
	if tr == nil {
		return nil
	}
	opts := []cogloop.RunOption{cogloop.WithTracerProvider(tr.t.Provider)}
	if tr.t.Options.Content {
		opts = append(opts, cogloop.WithTraceContent())
	}
	return opts
}

// stop flushes the spans; an export failure is a warning (printed by the
// handler given to FromEnv) and does not change the run's outcome.
func (tr *tracing) stop() {
	if tr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), flushTimeout)
	defer cancel()
	_ = tr.t.Shutdown(ctx)
}
