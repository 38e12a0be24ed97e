package storetest

import (
	"context"
	"errors"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

// testLease: one holder at a time, renewals, a named refusal, stale
// takeover, release by the holder only, and saves fenced by the lease.
func testLease(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	ls, ok := s.(memory.Leases)
	if !ok {
		t.Skip("the store keeps no leases")
	}
	require.NoError(t, ls.TakeLease(ctx, "r", "a", "", time.Minute))
	require.NoError(t, ls.TakeLease(ctx, "r", "a", "", time.Minute), "the holder renews")
	require.NoError(t, ls.TakeLease(ctx, "other", "b", "", time.Minute), "leases are per run")

	err := ls.TakeLease(ctx, "r", "b", "", time.Minute)
	require.ErrorIs(t, err, memory.ErrLeaseHeld)
	var held *memory.LeaseHeldError
	require.True(t, errors.As(err, &held))
	assert.Equal(t, "a", held.Holder)
	assert.True(t, held.Expires.After(h.clock.Now().Add(30*time.Second)), "expires about a minute from now: %v", held.Expires)
	assert.Contains(t, err.Error(), `run "r" is live in another process: a holds its lease until`)

	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("x", `1`), Holder: "a"}))
	err = s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("x", `2`), Holder: "b"})
	require.ErrorIs(t, err, memory.ErrLeaseLost, "a save fenced by another holder")
	cp, _, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, `1`, string(cp.State["x"]), "the refused save changed nothing")

	require.NoError(t, ls.ReleaseLease(ctx, "r", "b"), "releasing a lease one does not hold")
	require.ErrorIs(t, ls.TakeLease(ctx, "r", "b", "", time.Minute), memory.ErrLeaseHeld, "and it does nothing")
	require.NoError(t, ls.TakeLease(ctx, "r", "b", "a", time.Minute), "a stale holder named is replaced")
	require.ErrorIs(t, ls.TakeLease(ctx, "r", "a", "", time.Minute), memory.ErrLeaseHeld)
	require.ErrorIs(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", Holder: "a"}), memory.ErrLeaseLost,
		"the old holder's saves are refused")
	require.NoError(t, ls.ReleaseLease(ctx, "r", "b"))
	require.NoError(t, ls.TakeLease(ctx, "r", "c", "", time.Minute), "a released run is free")
}

// testLeaseExpiry: a lease not renewed within its TTL can be taken.
func testLeaseExpiry(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	ls, ok := s.(memory.Leases)
	if !ok {
		t.Skip("the store keeps no leases")
	}
	require.NoError(t, ls.TakeLease(ctx, "r", "a", "", 5*time.Millisecond))
	h.clock.Advance(time.Second) // the in-memory store's clock; Redis's runs on its own
	require.Eventually(t, func() bool { return ls.TakeLease(ctx, "r", "b", "", time.Minute) == nil },
		10*time.Second, 5*time.Millisecond, "the expired lease is free")
	assert.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", Holder: "b"}))
}
