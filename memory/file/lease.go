package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/cogloop/cogloop/memory"
)

// leaseFile is the on-disk form of a run's lease.
type leaseFile struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires_at"`
}

// readLease reads the lease at path; ok is false when there is none.
func readLease(path string) (l leaseFile, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return leaseFile{}, false, nil
	}
	if err != nil {
		return leaseFile{}, false, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return leaseFile{}, false, nil // a damaged lease holds nothing
	}
	return l, true, nil
}

// TakeLease implements [memory.Leases] across the processes that share the
// directory.
func (s *Store) TakeLease(ctx context.Context, runID, holder, stale string, ttl time.Duration) error {
	op := fmt.Sprintf("take lease of run %q", runID)
	path, unlock, err := s.begin(ctx, op, runID, ".lease")
	if err != nil {
		return err
	}
	defer unlock()
	l, ok, err := readLease(path)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	now := s.opts.Clock()
	if ok && l.Holder != holder && l.Holder != stale && now.Before(l.Expires) {
		return &memory.LeaseHeldError{RunID: runID, Holder: l.Holder, Expires: l.Expires}
	}
	if err := write(path, leaseFile{Holder: holder, Expires: now.Add(ttl)}); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// ReleaseLease implements [memory.Leases].
func (s *Store) ReleaseLease(ctx context.Context, runID, holder string) error {
	op := fmt.Sprintf("release lease of run %q", runID)
	path, unlock, err := s.begin(ctx, op, runID, ".lease")
	if err != nil {
		return err
	}
	defer unlock()
	l, ok, err := readLease(path)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if ok && l.Holder == holder {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	return nil
}

// fenced reports the error of a save by holder of runID's checkpoint when
// another live holder has the lease; the caller holds the lock.
func (s *Store) fenced(op, runID, holder string) error {
	if holder == "" {
		return nil
	}
	path, err := s.name(runID, ".lease")
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	l, ok, err := readLease(path)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if ok && l.Holder != holder && s.opts.Clock().Before(l.Expires) {
		return fmt.Errorf("%s: %s holds the lease, not %s: %w", op, l.Holder, holder, memory.ErrLeaseLost)
	}
	return nil
}
