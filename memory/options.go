package memory

import (
	"fmt"
	"time"
)

// Defaults for [Options]; applied in one place, [Options.Resolve].
const (
	DefaultPrefix        = "cogloop"
	DefaultNamespace     = "default"
	DefaultHistoryCap    = 100
	DefaultMemoryCap     = 1000
	DefaultCheckpointTTL = 7 * 24 * time.Hour
)

// Options configure a store; every store takes the same ones.
//
// TTLs follow one rule: 0 means the default, negative means never expire.
// The defaults are: history never expires (as in OrKa), checkpoints expire
// after [DefaultCheckpointTTL], memories without their own ExpiresAt never
// expire. A TTL counts from the last write to the key: each Append
// refreshes the loop's history TTL, each save the checkpoint's. An entry's
// own TTL ([Entry.TTL], a loop's history_ttl) and a save's ([Checkpoint.TTL],
// cogloop run --checkpoint-ttl) replace the store's for that write.
type Options struct {
	// Prefix is the first part of every key; default "cogloop".
	Prefix string
	// Namespace is the second part of every key, isolating deployments,
	// tenants or tests that share a server; default "default".
	Namespace string

	// HistoryCap is the number of entries kept per loop; default 100.
	HistoryCap int
	// HistoryTTL expires a loop's history after no append for that long.
	HistoryTTL time.Duration
	// CheckpointTTL expires a run's checkpoint after no save for that long.
	CheckpointTTL time.Duration
	// MemoryCap is the number of memories kept per memory namespace, oldest
	// dropped first; default 1000.
	MemoryCap int
	// MemoryTTL is the lifetime of a memory written without ExpiresAt.
	MemoryTTL time.Duration

	// Now is the store's clock (entry and checkpoint times, memory expiry
	// and decay); default time.Now. Server-side key expiry always runs on
	// the server's clock.
	Now func() time.Time
}

// Resolve returns o with defaults applied, or an error wrapping [ErrInvalid].
// Stores call it in their constructors.
func (o Options) Resolve() (Options, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if err := checkName("prefix", o.Prefix); err != nil {
		return Options{}, err
	}
	if err := checkName("namespace", o.Namespace); err != nil {
		return Options{}, err
	}
	switch {
	case o.HistoryCap < 0:
		return Options{}, fmt.Errorf("history cap %d is negative: %w", o.HistoryCap, ErrInvalid)
	case o.HistoryCap == 0:
		o.HistoryCap = DefaultHistoryCap
	}
	switch {
	case o.MemoryCap < 0:
		return Options{}, fmt.Errorf("memory cap %d is negative: %w", o.MemoryCap, ErrInvalid)
	case o.MemoryCap == 0:
		o.MemoryCap = DefaultMemoryCap
	}
	if o.CheckpointTTL == 0 {
		o.CheckpointTTL = DefaultCheckpointTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Clock returns the store's time: o.Now in UTC without a monotonic reading,
// so that it compares equal after a round trip through JSON.
func (o Options) Clock() time.Time {
	return o.Now().UTC().Round(0)
}

// ttl turns the Options TTL convention into "0 means never".
func ttl(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}

// EffectiveHistoryTTL is the history TTL of resolved options; 0 means never.
func (o Options) EffectiveHistoryTTL() time.Duration { return ttl(o.HistoryTTL) }

// EffectiveCheckpointTTL is the checkpoint TTL of resolved options; 0 means never.
func (o Options) EffectiveCheckpointTTL() time.Duration { return ttl(o.CheckpointTTL) }

// EffectiveMemoryTTL is the default memory TTL of resolved options; 0 means never.
func (o Options) EffectiveMemoryTTL() time.Duration { return ttl(o.MemoryTTL) }

// AppendTTL is the TTL an append of e sets on its loop's history in a
// resolved store: e.TTL when positive, else the store's HistoryTTL; 0 means
// never.
func (o Options) AppendTTL(e Entry) time.Duration {
	if e.TTL > 0 {
		return e.TTL
	}
	return o.EffectiveHistoryTTL()
}

// SaveTTL is the TTL a save of cp sets on its checkpoint in a resolved
// store: cp.TTL when positive, else the store's CheckpointTTL; 0 means never.
func (o Options) SaveTTL(cp Checkpoint) time.Duration {
	if cp.TTL > 0 {
		return cp.TTL
	}
	return o.EffectiveCheckpointTTL()
}
