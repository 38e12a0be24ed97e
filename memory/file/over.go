package file

import (
	"context"
	"errors"
	"time"

	"github.com/cogloop/cogloop/memory"
)

// Over returns a [memory.Store] whose checkpoints and leases are s's and
// whose histories and memories are base's. Closing it closes both.
func (s *Store) Over(base memory.Store) memory.Store { return &layered{Store: base, files: s} }

// layered is [Store.Over]'s store.
type layered struct {
	memory.Store
	files *Store
}

var (
	_ memory.Store  = (*layered)(nil)
	_ memory.Leases = (*layered)(nil)
	_ memory.States = (*layered)(nil)
)

func (l *layered) LoadState(ctx context.Context, runID, path string) ([]byte, bool, error) {
	return l.files.LoadState(ctx, runID, path)
}

func (l *layered) SwapState(ctx context.Context, runID, path string, old, new []byte) (bool, error) {
	return l.files.SwapState(ctx, runID, path, old, new)
}

func (l *layered) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	return l.files.SaveCheckpoint(ctx, runID, cp)
}

func (l *layered) LoadCheckpoint(ctx context.Context, runID string) (memory.Checkpoint, bool, error) {
	return l.files.LoadCheckpoint(ctx, runID)
}

func (l *layered) DeleteCheckpoint(ctx context.Context, runID string) error {
	return l.files.DeleteCheckpoint(ctx, runID)
}

func (l *layered) TakeLease(ctx context.Context, runID, holder, stale string, ttl time.Duration) error {
	return l.files.TakeLease(ctx, runID, holder, stale, ttl)
}

func (l *layered) ReleaseLease(ctx context.Context, runID, holder string) error {
	return l.files.ReleaseLease(ctx, runID, holder)
}

func (l *layered) Close() error {
	return errors.Join(l.Store.Close(), l.files.Close())
}

// Sweep removes the expired checkpoint files ([Store.Sweep]).
func (l *layered) Sweep(ctx context.Context) (int, error) { return l.files.Sweep(ctx) }
