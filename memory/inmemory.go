package memory

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// InMemory is the default [Store]: everything lives in maps of the process,
// behind one mutex. It keeps the same keys, caps, TTLs (on the store's
// clock) and idempotency rules as the Redis store, so a workflow behaves
// the same on both; only nothing survives the process.
type InMemory struct {
	opts Options
	keys Keyspace

	mu          sync.Mutex
	closed      bool
	histories   map[string]*memHistory    // by past_loops key
	checkpoints map[string]*memCheckpoint // by checkpoint key
	memories    map[string]*memSpace      // by memories key
	leases      map[string]memLease       // by lease key
}

var _ Store = (*InMemory)(nil)

type memHistory struct {
	entries []Entry
	expires time.Time // zero: never
}

type memCheckpoint struct {
	cp      Checkpoint
	expires time.Time
}

type memSpace struct {
	byID map[string]Memory
}

// NewInMemory returns an empty in-memory store. It fails only on invalid
// options.
func NewInMemory(opts Options) (*InMemory, error) {
	opts, err := opts.Resolve()
	if err != nil {
		return nil, fmt.Errorf("new in-memory store: %w", err)
	}
	keys, err := NewKeyspace(opts.Prefix, opts.Namespace)
	if err != nil {
		return nil, fmt.Errorf("new in-memory store: %w", err)
	}
	return &InMemory{
		opts:        opts,
		keys:        keys,
		histories:   make(map[string]*memHistory),
		checkpoints: make(map[string]*memCheckpoint),
		memories:    make(map[string]*memSpace),
		leases:      make(map[string]memLease),
	}, nil
}

// Close drops the store's data; later calls fail with [ErrClosed].
func (s *InMemory) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.histories, s.checkpoints, s.memories, s.leases = nil, nil, nil, nil
	return nil
}

// lock takes the mutex unless the store is closed.
func (s *InMemory) lock(op string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("%s: %w", op, ErrClosed)
	}
	return nil
}

// begin starts op on the key of kind and id: the context must be live, the
// key valid and check (when not nil) must pass. It returns the key with s.mu
// held; the caller unlocks it.
func (s *InMemory) begin(ctx context.Context, op string, kind Kind, id string, check func() error) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	key, err := s.keys.Key(kind, id)
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	if check != nil {
		if err := check(); err != nil {
			return "", fmt.Errorf("%s: %w", op, err)
		}
	}
	return key, s.lock(op)
}

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

func live(expires, now time.Time) bool {
	return expires.IsZero() || now.Before(expires)
}

func cloneEntry(e Entry) Entry {
	e.Data = bytes.Clone(e.Data)
	return e
}

// Append implements [History].
func (s *InMemory) Append(ctx context.Context, loopID string, e Entry) error {
	op := fmt.Sprintf("append history loop %q run %q iteration %d", loopID, e.RunID, e.Iteration)
	key, err := s.begin(ctx, op, KindPastLoops, loopID, e.Validate)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	now := s.opts.Clock()
	h := s.histories[key]
	if h == nil || !live(h.expires, now) {
		h = &memHistory{}
		s.histories[key] = h
	}
	h.expires = expiry(now, s.opts.AppendTTL(e))
	if e.At.IsZero() {
		e.At = now
	}
	e.TTL = 0
	for i, old := range h.entries {
		if old.RunID == e.RunID && old.LoopPath == e.LoopPath && old.Iteration == e.Iteration {
			h.entries[i] = cloneEntry(e)
			return nil
		}
	}
	h.entries = append(h.entries, cloneEntry(e))
	if extra := len(h.entries) - s.opts.HistoryCap; extra > 0 {
		h.entries = slices.Delete(h.entries, 0, extra)
	}
	return nil
}

// History implements [History].
func (s *InMemory) History(ctx context.Context, loopID string, limit int) ([]Entry, error) {
	op := fmt.Sprintf("load history loop %q", loopID)
	key, err := s.begin(ctx, op, KindPastLoops, loopID, nil)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	h := s.histories[key]
	if h == nil || !live(h.expires, s.opts.Clock()) {
		return []Entry{}, nil
	}
	entries := h.entries
	if limit > 0 && len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = cloneEntry(e)
	}
	return out, nil
}

// ClearHistory implements [History].
func (s *InMemory) ClearHistory(ctx context.Context, loopID string) error {
	op := fmt.Sprintf("clear history loop %q", loopID)
	key, err := s.begin(ctx, op, KindPastLoops, loopID, nil)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	delete(s.histories, key)
	return nil
}

func cloneState(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = bytes.Clone(v)
	}
	return out
}

// SaveCheckpoint implements [Checkpoints].
func (s *InMemory) SaveCheckpoint(ctx context.Context, runID string, cp Checkpoint) error {
	op := fmt.Sprintf("save checkpoint run %q", runID)
	key, err := s.begin(ctx, op, KindCheckpoint, runID, cp.Validate)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := s.fenced(op, runID, cp.Holder); err != nil {
		return err
	}
	now := s.opts.Clock()
	c := s.checkpoints[key]
	if c == nil || !live(c.expires, now) {
		c = &memCheckpoint{cp: Checkpoint{Digest: cp.Digest, State: map[string][]byte{}}}
		s.checkpoints[key] = c
	}
	if c.cp.Digest != cp.Digest {
		return fmt.Errorf("%s: stored digest %q, saving %q: %w", op, c.cp.Digest, cp.Digest, ErrDigestMismatch)
	}
	maps.Copy(c.cp.State, cloneState(cp.State))
	c.cp.UpdatedAt = now
	c.expires = expiry(now, s.opts.SaveTTL(cp))
	return nil
}

// LoadCheckpoint implements [Checkpoints].
func (s *InMemory) LoadCheckpoint(ctx context.Context, runID string) (Checkpoint, bool, error) {
	op := fmt.Sprintf("load checkpoint run %q", runID)
	key, err := s.begin(ctx, op, KindCheckpoint, runID, nil)
	if err != nil {
		return Checkpoint{}, false, err
	}
	defer s.mu.Unlock()
	c := s.checkpoints[key]
	if c == nil || !live(c.expires, s.opts.Clock()) {
		return Checkpoint{}, false, nil
	}
	cp := c.cp
	cp.State = cloneState(cp.State)
	return cp, true, nil
}

// DeleteCheckpoint implements [Checkpoints].
func (s *InMemory) DeleteCheckpoint(ctx context.Context, runID string) error {
	op := fmt.Sprintf("delete checkpoint run %q", runID)
	key, err := s.begin(ctx, op, KindCheckpoint, runID, nil)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	delete(s.checkpoints, key)
	return nil
}

// Remember implements [Memories].
func (s *InMemory) Remember(ctx context.Context, namespace string, m Memory) error {
	op := fmt.Sprintf("remember in namespace %q", namespace)
	key, err := s.begin(ctx, op, KindMemories, namespace, nil)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	now := s.opts.Clock()
	m, err = PrepareMemory(m, now, s.opts.EffectiveMemoryTTL())
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if m.Expired(now) {
		return nil
	}
	sp := s.memories[key]
	if sp == nil {
		sp = &memSpace{byID: make(map[string]Memory)}
		s.memories[key] = sp
	}
	maps.DeleteFunc(sp.byID, func(_ string, old Memory) bool { return old.Expired(now) })
	sp.byID[m.ID] = m
	if extra := len(sp.byID) - s.opts.MemoryCap; extra > 0 {
		// Oldest first by millisecond, ties by id: the order of the Redis
		// store's sorted set.
		all := slices.SortedFunc(maps.Values(sp.byID), func(a, b Memory) int {
			if c := cmp.Compare(a.CreatedAt.UnixMilli(), b.CreatedAt.UnixMilli()); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		for _, old := range all[:extra] {
			delete(sp.byID, old.ID)
		}
	}
	return nil
}

// Recall implements [Memories].
func (s *InMemory) Recall(ctx context.Context, namespace string, q Query) ([]Match, error) {
	op := fmt.Sprintf("recall from namespace %q", namespace)
	key, err := s.begin(ctx, op, KindMemories, namespace, nil)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	sp := s.memories[key]
	if sp == nil {
		return []Match{}, nil
	}
	return Rank(q, s.opts.Clock(), slices.Collect(maps.Values(sp.byID))), nil
}

var _ States = (*InMemory)(nil)

// LoadState implements [States].
func (s *InMemory) LoadState(ctx context.Context, runID, path string) ([]byte, bool, error) {
	op := fmt.Sprintf("load state %q of run %q", path, runID)
	key, err := s.begin(ctx, op, KindCheckpoint, runID, nil)
	if err != nil {
		return nil, false, err
	}
	defer s.mu.Unlock()
	c := s.checkpoints[key]
	if c == nil || !live(c.expires, s.opts.Clock()) {
		return nil, false, nil
	}
	v, ok := c.cp.State[path]
	return bytes.Clone(v), ok, nil
}

// SwapState implements [States].
func (s *InMemory) SwapState(ctx context.Context, runID, path string, old, new []byte) (bool, error) {
	op := fmt.Sprintf("swap state %q of run %q", path, runID)
	key, err := s.begin(ctx, op, KindCheckpoint, runID, nil)
	if err != nil {
		return false, err
	}
	defer s.mu.Unlock()
	c := s.checkpoints[key]
	if c == nil || !live(c.expires, s.opts.Clock()) {
		return false, nil
	}
	cur, ok := c.cp.State[path]
	switch {
	case new == nil && !ok, new != nil && ok && bytes.Equal(cur, new):
		return true, nil // done already
	case old == nil && ok, old != nil && (!ok || !bytes.Equal(cur, old)):
		return false, nil
	}
	if new == nil {
		delete(c.cp.State, path)
	} else {
		c.cp.State[path] = bytes.Clone(new)
	}
	c.cp.UpdatedAt = s.opts.Clock()
	return true, nil
}
