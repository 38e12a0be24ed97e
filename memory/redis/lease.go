package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/memory"
)

var _ memory.Leases = (*Store)(nil)

// TakeLease implements [memory.Leases] with one script call: the lease is a
// string key holding the holder's token, with a TTL.
func (s *Store) TakeLease(ctx context.Context, runID, holder, stale string, ttl time.Duration) error {
	op := fmt.Sprintf("take lease of run %q", runID)
	key, err := s.keys.Key(memory.KindLease, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if holder == "" || ttl <= 0 {
		return fmt.Errorf("%s: empty holder or ttl %v: %w", op, ttl, memory.ErrInvalid)
	}
	var res []any
	err = s.do(ctx, op, func(ctx context.Context) error {
		var err error
		res, err = takeLeaseScript.Run(ctx, s.client, []string{key}, holder, stale, ms(ttl)).Slice()
		return err
	})
	if err != nil {
		return err
	}
	if len(res) == 3 && res[0] == int64(0) {
		left, _ := res[2].(int64)
		return &memory.LeaseHeldError{RunID: runID, Holder: fmt.Sprint(res[1]), Expires: s.opts.Clock().Add(time.Duration(left) * time.Millisecond)}
	}
	return nil
}

// ReleaseLease implements [memory.Leases] with one script call.
func (s *Store) ReleaseLease(ctx context.Context, runID, holder string) error {
	op := fmt.Sprintf("release lease of run %q", runID)
	key, err := s.keys.Key(memory.KindLease, runID)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return s.do(ctx, op, func(ctx context.Context) error {
		return releaseLeaseScript.Run(ctx, s.client, []string{key}, holder).Err()
	})
}
