package redis

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/cogloop/cogloop/memory/storetest"
)

// A store on a caller's client passes the conformance suite.
func TestConformanceWithCallersClient(t *testing.T) {
	srv := redistest.Start(t)
	storetest.Run(t, func(t *testing.T, opts memory.Options) memory.Store {
		client := goredis.NewClient(&goredis.Options{Addr: srv.Addr(), MaxRetries: -1})
		t.Cleanup(func() { _ = client.Close() })
		s, err := NewWithClient(context.Background(), client, Options{Options: opts})
		require.NoError(t, err)
		return s
	})
}

// Closing the store leaves the caller's client open; the store refuses work.
func TestCloseLeavesCallersClientOpen(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr()})
	defer func() { _ = client.Close() }()
	s, err := NewWithClient(ctx, client, Options{})
	require.NoError(t, err)
	require.NoError(t, s.Append(ctx, "loop", memory.Entry{RunID: "r", Iteration: 1, Data: []byte(`{"loop_number":1}`)}))
	require.NoError(t, s.Close())
	_, err = s.History(ctx, "loop", 0)
	require.ErrorIs(t, err, memory.ErrClosed)
	require.NoError(t, client.Ping(ctx).Err(), "the caller's client is still open")
	n, err := client.Exists(ctx, "cogloop:default:loop:loop:past_loops").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the store wrote through the caller's client")
}

// A client whose server is down fails NewWithClient with ErrUnavailable.
func TestCallersClientUnreachable(t *testing.T) {
	client := goredis.NewClient(&goredis.Options{Addr: nettest.ClosedAddr(t), MaxRetries: -1})
	defer func() { _ = client.Close() }()
	_, err := NewWithClient(context.Background(), client, Options{})
	require.ErrorIs(t, err, memory.ErrUnavailable)
	_, err = NewWithClient(context.Background(), nil, Options{})
	require.ErrorContains(t, err, "client is nil")
}
