package redis

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSetLogger(t *testing.T) {
	var buf bytes.Buffer
	SetLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { SetLogger(nil) })
	addr := nettest.ClosedAddr(t)
	_, err := New(context.Background(), "redis://"+addr+"/0", Options{})
	require.Error(t, err)
	assert.Contains(t, buf.String(), "component=go-redis")
	assert.Contains(t, buf.String(), addr)
}
