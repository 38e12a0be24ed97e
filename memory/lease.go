package memory

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrLeaseHeld reports that another live process holds a run's lease: a
// second run, resume or worker on a live run id is refused. It comes inside
// a [*LeaseHeldError], which names the holder.
var ErrLeaseHeld = errors.New("the run is live in another process")

// Leases give each run id to one live process at a time. A process takes
// its run's lease before the run starts, renews it while the run goes on and
// releases it at the end; a lease not renewed expires after its TTL, so a
// dead process's run can be taken over. Stores that keep checkpoints for
// several processes (Redis) implement it; the in-memory store's leases are
// local to the process.
type Leases interface {
	// TakeLease gives runID's lease to holder for ttl when nobody holds it,
	// when its lease expired, or when holder holds it already (a renewal).
	// When another holder's lease is live it fails with a
	// [*LeaseHeldError] wrapping [ErrLeaseHeld]. A holder that names a
	// stale process (see [LeaseHeldError.Stale]) is replaced when stale
	// is set to that holder.
	TakeLease(ctx context.Context, runID, holder, stale string, ttl time.Duration) error
	// ReleaseLease frees runID's lease when holder holds it, and does
	// nothing otherwise.
	ReleaseLease(ctx context.Context, runID, holder string) error
}

// LeaseHeldError is the refusal of [Leases.TakeLease]: who holds the run and
// until when.
type LeaseHeldError struct {
	RunID   string
	Holder  string    // the holder's token: host/pid/random
	Expires time.Time // when the lease expires unless renewed
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("run %q is live in another process: %s holds its lease until %s (in %s unless renewed); wait for it to end, or for its lease to expire if it died",
		e.RunID, e.Holder, e.Expires.UTC().Format(time.RFC3339), time.Until(e.Expires).Round(time.Second))
}

func (e *LeaseHeldError) Unwrap() error { return ErrLeaseHeld }

// ErrLeaseLost reports a write fenced by a lease ([Checkpoint.Holder])
// that another holder took over: the process writing has lost its run and
// must stop.
var ErrLeaseLost = errors.New("the run's lease was taken over by another process")

// memLease is a lease of the in-memory store.
type memLease struct {
	holder  string
	expires time.Time
}

// TakeLease implements [Leases] within the process.
func (s *InMemory) TakeLease(ctx context.Context, runID, holder, stale string, ttl time.Duration) error {
	op := fmt.Sprintf("take lease of run %q", runID)
	key, err := s.begin(ctx, op, KindLease, runID, nil)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	now := s.opts.Clock()
	if l, ok := s.leases[key]; ok && l.holder != holder && l.holder != stale && now.Before(l.expires) {
		return &LeaseHeldError{RunID: runID, Holder: l.holder, Expires: l.expires}
	}
	s.leases[key] = memLease{holder: holder, expires: now.Add(ttl)}
	return nil
}

// ReleaseLease implements [Leases] within the process.
func (s *InMemory) ReleaseLease(ctx context.Context, runID, holder string) error {
	op := fmt.Sprintf("release lease of run %q", runID)
	key, err := s.begin(ctx, op, KindLease, runID, nil)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.leases[key].holder == holder {
		delete(s.leases, key)
	}
	return nil
}

// fenced reports the error of a save by holder of runID's checkpoint when
// another live holder has the lease; the caller holds s.mu.
func (s *InMemory) fenced(op, runID, holder string) error {
	if holder == "" {
		return nil
	}
	key, err := s.keys.Key(KindLease, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if l, ok := s.leases[key]; ok && l.holder != holder && s.opts.Clock().Before(l.expires) {
		return fmt.Errorf("%s: %s holds the lease, not %s: %w", op, l.holder, holder, ErrLeaseLost)
	}
	return nil
}
