package otlp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/app/otlp"
)

func TestEnabledByTheStandardVariables(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"nothing set", nil, false},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{"exporter otlp", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"exporter none wins", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false},
		{"sdk disabled wins", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			assert.Equal(t, tc.want, otlp.Enabled(getenv))
			tr, err := otlp.FromEnv(context.Background(), getenv, "v0", nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, tr != nil)
			require.NoError(t, tr.Shutdown(context.Background()))
		})
	}
}

func TestUnsupportedExporterIsAnError(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}[k] }
	_, err := otlp.FromEnv(context.Background(), getenv, "v0", nil)
	assert.ErrorContains(t, err, "OTEL_TRACES_EXPORTER=zipkin is not supported")
}
