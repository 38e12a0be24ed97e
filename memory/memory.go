package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/cogloop/cogloop/internal/embedding"
	"github.com/cogloop/cogloop/internal/plainjson"
)

// Store is everything the loop node, the memory agents and the CLI need
// from a storage backend. Both [InMemory] and the Redis store in
// memory/redis implement it and pass the suite in memory/storetest.
//
// Every method is safe for concurrent use and idempotent: repeating a call
// with the same arguments leaves the store as one call would, so a caller
// (or a client library) may retry any of them after a timeout.
type Store interface {
	History
	Checkpoints
	Memories
	// Close releases the store's resources. Calls after Close fail with
	// [ErrClosed]. Calling Close again is harmless.
	io.Closer
}

// History is a loop's persisted past_loops, shared by every run that uses
// the loop id (OrKa's persist_across_runs).
type History interface {
	// Append adds e at the end of loopID's history, trims the history to
	// the store's cap and refreshes its TTL, in one atomic step.
	//
	// An entry is identified by (e.RunID, e.LoopPath, e.Iteration): when an
	// entry with that identity is among the loop's last cap entries, Append
	// replaces its data and time in place instead of adding one (the last
	// write wins), so a client retry changes nothing and a resumed run's redo
	// of an iteration overwrites the discarded attempt: at most one entry per
	// iteration, the one the run reported. Concurrent appends from several
	// runs all land.
	Append(ctx context.Context, loopID string, e Entry) error

	// History returns the last limit entries of loopID's history, oldest
	// first; limit <= 0 means all (at most the cap). An unknown loop has an
	// empty history.
	History(ctx context.Context, loopID string, limit int) ([]Entry, error)

	// ClearHistory deletes exactly loopID's history keys. Other loops,
	// whatever their ids, are untouched.
	ClearHistory(ctx context.Context, loopID string) error
}

// Checkpoints hold a run's progress so that a run that died can resume
// from its last completed iteration.
type Checkpoints interface {
	// SaveCheckpoint merges cp into runID's checkpoint: each loop path in
	// cp.State replaces that path's stored state, other paths are kept, and
	// UpdatedAt becomes the store's clock. The first save fixes the run's
	// digest; a later save with another digest fails with
	// [ErrDigestMismatch] and changes nothing. Merge-by-path lets loops in
	// parallel branches save without a read-modify-write race.
	SaveCheckpoint(ctx context.Context, runID string, cp Checkpoint) error

	// LoadCheckpoint returns runID's checkpoint; ok is false when there is
	// none (never saved, deleted or expired).
	LoadCheckpoint(ctx context.Context, runID string) (cp Checkpoint, ok bool, err error)

	// DeleteCheckpoint removes runID's checkpoint, if any.
	DeleteCheckpoint(ctx context.Context, runID string) error
}

// Memories back OrKa's memory reader and writer agents.
type Memories interface {
	// Remember stores m in namespace, replacing a memory with the same ID.
	// An empty m.ID is derived from the content and metadata, so writing
	// the same fact twice keeps one memory (with the later timestamps).
	// When the namespace holds more than the store's memory cap, the oldest
	// memories are dropped. A memory that has already expired is not
	// stored.
	Remember(ctx context.Context, namespace string, m Memory) error

	// Recall returns the memories of namespace that match q, best first;
	// ranking is [Rank], identical in every store.
	Recall(ctx context.Context, namespace string, q Query) ([]Match, error)
}

// Entry is one iteration's record in a loop's history: one element of
// past_loops.
type Entry struct {
	RunID     string // the run that wrote the entry; required
	LoopPath  string // the loop's path inside the run (nested loops), may be empty
	Iteration int    // 1-based loop number
	// Data is the past_loops object as JSON, stored and returned verbatim
	// (modulo insignificant whitespace in stores that embed it).
	Data json.RawMessage
	// At is when the entry was written; Append sets it from the store's
	// clock when zero.
	At time.Time
	// TTL, when positive, expires the loop's history after no append for
	// that long instead of the store's HistoryTTL (a loop's history_ttl).
	// It is not stored with the entry.
	TTL time.Duration
}

// Validate reports whether e can be appended.
func (e Entry) Validate() error {
	switch {
	case e.RunID == "":
		return fmt.Errorf("entry: empty run id: %w", ErrInvalid)
	case e.Iteration < 1:
		return fmt.Errorf("entry: iteration %d below 1: %w", e.Iteration, ErrInvalid)
	case !plainjson.Valid(e.Data):
		return fmt.Errorf("entry: data is not valid json: %w", ErrInvalid)
	}
	return nil
}

// Checkpoint is a run's saved progress. The store treats state as opaque;
// the loop node decides what goes in (iteration, past_loops, best, usage).
type Checkpoint struct {
	// Digest identifies the workflow file (e.g. its SHA-256); a resume
	// compares it with the file it is about to run.
	Digest string
	// State is each loop's opaque state by loop path.
	State map[string][]byte
	// UpdatedAt is set by the store on save.
	UpdatedAt time.Time
	// TTL, when positive, expires the checkpoint after no save for that
	// long instead of the store's CheckpointTTL (cogloop run
	// --checkpoint-ttl). It is not stored.
	TTL time.Duration
	// Holder, when set, fences the save with the run's lease ([Leases]):
	// when another holder has the lease the save fails with [ErrLeaseLost]
	// and changes nothing. It is not stored.
	Holder string
}

// Validate reports whether cp can be saved.
func (cp Checkpoint) Validate() error {
	if _, ok := cp.State[""]; ok {
		return fmt.Errorf("checkpoint: empty loop path: %w", ErrInvalid)
	}
	return nil
}

// Memory is one entry of a memory agent's namespace.
type Memory struct {
	// ID identifies the memory in its namespace; empty means derived from
	// Content and Metadata (see [PrepareMemory]).
	ID       string
	Content  string
	Metadata map[string]string
	// Vector is Content's embedding, if the writer had an [Embedder].
	Vector []float32
	// CreatedAt is set from the store's clock when zero.
	CreatedAt time.Time
	// ExpiresAt is when the memory stops being recalled; zero means
	// CreatedAt plus the store's MemoryTTL (or never, when that is none).
	ExpiresAt time.Time
}

// Query selects and ranks memories; see [Rank].
type Query struct {
	// Text is matched by keyword overlap.
	Text string
	// Vector, when set, is matched by cosine similarity against memories
	// whose vectors have the same length, instead of keyword overlap.
	Vector []float32
	// TextWeight, in [0,1], makes a vector match hybrid (OrKa's
	// text_weight/vector_weight): its similarity is TextWeight × keyword
	// overlap + (1 − TextWeight) × cosine similarity. 0 is pure vector
	// similarity; it does nothing where keyword overlap is used anyway.
	TextWeight float64
	// Limit caps the result; <= 0 means 10 (OrKa's default).
	Limit int
	// Threshold is the minimum similarity in [0,1] (OrKa's
	// similarity_threshold); 0 accepts everything.
	Threshold float64
	// Metadata, when set, keeps only memories whose metadata has every
	// given key with the given value.
	Metadata map[string]string
	// HalfLife, when positive, decays the score by half for every HalfLife
	// of a memory's age, so recent memories outrank old ones of similar
	// relevance. It does not affect Threshold.
	HalfLife time.Duration
}

// Match is a recalled memory with its scores.
type Match struct {
	Memory     Memory
	Similarity float64 // keyword overlap or cosine similarity, in [0,1]
	Score      float64 // Similarity after decay; the ranking key
}

// Embedder turns text into a vector. A memory agent given one fills
// [Memory.Vector] and [Query.Vector]; stores only keep and compare vectors.
// It is the same interface as cognition's (one definition, in
// internal/embedding).
type Embedder = embedding.Embedder

// PrepareMemory is for [Store] implementations: it validates m and fills
// what Remember derives, identically in every store: an empty ID becomes the
// first 16 bytes (hex) of the SHA-256 of Content and the sorted Metadata,
// a zero CreatedAt becomes now, and a zero ExpiresAt becomes
// CreatedAt+defaultTTL when defaultTTL > 0. Slices and maps are copied.
func PrepareMemory(m Memory, now time.Time, defaultTTL time.Duration) (Memory, error) {
	if m.Content == "" && len(m.Vector) == 0 {
		return Memory{}, fmt.Errorf("memory: no content and no vector: %w", ErrInvalid)
	}
	if m.ID == "" {
		h := sha256.New()
		writeField(h, m.Content)
		for _, k := range slices.Sorted(maps.Keys(m.Metadata)) {
			writeField(h, k)
			writeField(h, m.Metadata[k])
		}
		m.ID = hex.EncodeToString(h.Sum(nil)[:16])
	}
	if len(m.ID) > maxIDLen {
		return Memory{}, fmt.Errorf("memory: id longer than %d bytes: %w", maxIDLen, ErrInvalid)
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	if m.ExpiresAt.IsZero() && defaultTTL > 0 {
		m.ExpiresAt = m.CreatedAt.Add(defaultTTL)
	}
	return cloneMemory(m), nil
}

// writeField writes s length-prefixed so that field boundaries cannot be
// shifted to make two different memories hash alike.
func writeField(w io.Writer, s string) {
	fmt.Fprintf(w, "%d:%s", len(s), s)
}

func cloneMemory(m Memory) Memory {
	m.Metadata = maps.Clone(m.Metadata)
	m.Vector = slices.Clone(m.Vector)
	return m
}

// Expired reports whether m is past its ExpiresAt at now.
func (m Memory) Expired(now time.Time) bool {
	return !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt)
}

// States are single-path operations on a run's checkpoint, for the answers
// to waiting runs and for pause requests: an answer must win exactly once
// when two race (two terminals, two workers). Both built-in stores implement
// it; a store without it answers with a load and a save, which is atomic
// within one process only.
type States interface {
	// LoadState returns the state at path of runID's checkpoint; ok is
	// false when the checkpoint or the path is absent.
	LoadState(ctx context.Context, runID, path string) (data []byte, ok bool, err error)
	// SwapState sets the state at path to new when it holds old (nil old:
	// the path is absent), in one atomic step; a nil new deletes the path.
	// It reports whether the state now holds new by this call or an
	// identical earlier one (so a retry after a lost reply is safe), and
	// false when the checkpoint does not exist or the state is neither.
	SwapState(ctx context.Context, runID, path string, old, new []byte) (bool, error)
}
