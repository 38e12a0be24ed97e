package file

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/memory"
)

// Store keeps run checkpoints and leases as files in one directory. It is
// safe for concurrent use by goroutines and by processes sharing the
// directory.
type Store struct {
	dir  string
	opts memory.Options

	mu     sync.Mutex
	closed bool
}

var (
	_ memory.Checkpoints = (*Store)(nil)
	_ memory.Leases      = (*Store)(nil)
	_ memory.States      = (*Store)(nil)
)

// maxName bounds a file name built from an id; longer ones are hashed.
const maxName = 200

// New opens the store in dir, creating it (0700) when missing, and checks
// that it can write there. opts are resolved as every store's are: its
// prefix and namespace name the files, its clock and CheckpointTTL expire
// them.
func New(dir string, opts memory.Options) (*Store, error) {
	opts, err := opts.Resolve()
	if err != nil {
		return nil, fmt.Errorf("new file store: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("new file store: %w", err)
	}
	probe, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return nil, fmt.Errorf("new file store: cannot write in %s: %w", dir, err)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	return &Store{dir: dir, opts: opts}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Close makes later calls fail with [memory.ErrClosed]; the files stay.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// file is the on-disk form of a checkpoint.
type file struct {
	RunID     string                     `json:"run_id"`
	Digest    string                     `json:"digest"`
	UpdatedAt time.Time                  `json:"updated_at"`
	Expires   time.Time                  `json:"expires_at,omitzero"`
	State     map[string]json.RawMessage `json:"state,omitempty"`
	Bytes     map[string][]byte          `json:"bytes,omitempty"` // state values that are not JSON
}

// name is the file name of runID's data with ext:
// "<prefix>+<namespace>+<escaped id><ext>" ('+' is in none of the parts).
func (s *Store) name(runID, ext string) (string, error) {
	keys, err := memory.NewKeyspace(s.opts.Prefix, s.opts.Namespace)
	if err != nil {
		return "", err
	}
	key, err := keys.Key(memory.KindCheckpoint, runID) // validates the id
	if err != nil {
		return "", err
	}
	// <prefix>:<namespace>:run:<escaped id>:checkpoint; the escaped id has no ':'
	parts := strings.Split(key, ":")
	id := parts[3]
	if len(id) > maxName {
		sum := sha256.Sum256([]byte(runID))
		id = "%h" + hex.EncodeToString(sum[:]) // "%h" is never an escape, so never an id
	}
	return filepath.Join(s.dir, s.opts.Prefix+"+"+s.opts.Namespace+"+"+id+ext), nil
}

// begin checks ctx and the store, names runID's file with ext and takes
// the directory's lock; the caller calls unlock.
func (s *Store) begin(ctx context.Context, op, runID, ext string) (path string, unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("%s: %w", op, err)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return "", nil, fmt.Errorf("%s: %w", op, memory.ErrClosed)
	}
	path, err = s.name(runID, ext)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", op, err)
	}
	unlock, err = lockFile(filepath.Join(s.dir, ".lock"))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w: %w", op, memory.ErrUnavailable, err)
	}
	return path, unlock, nil
}

// read loads the checkpoint at path; ok is false when there is none or it
// expired (an expired file is removed).
func (s *Store) read(path string) (f file, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return file{}, false, nil
	}
	if err != nil {
		return file{}, false, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return file{}, false, fmt.Errorf("checkpoint file %s is damaged: %w", path, err)
	}
	if !f.Expires.IsZero() && !s.opts.Clock().Before(f.Expires) {
		_ = os.Remove(path)
		return file{}, false, nil
	}
	return f, true, nil
}

// write replaces the file at path with v: a temporary file in the same
// directory, synced, renamed over it.
func write(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path) // CreateTemp made it 0600
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// SaveCheckpoint implements [memory.Checkpoints].
func (s *Store) SaveCheckpoint(ctx context.Context, runID string, cp memory.Checkpoint) error {
	op := fmt.Sprintf("save checkpoint run %q", runID)
	if err := cp.Validate(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	path, unlock, err := s.begin(ctx, op, runID, ".json")
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.fenced(op, runID, cp.Holder); err != nil {
		return err
	}
	f, ok, err := s.read(path)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if !ok {
		f = file{RunID: runID, Digest: cp.Digest}
	}
	if f.Digest != cp.Digest {
		return fmt.Errorf("%s: stored digest %q, saving %q: %w", op, f.Digest, cp.Digest, memory.ErrDigestMismatch)
	}
	for p, v := range cp.State {
		f.set(p, v)
	}
	now := s.opts.Clock()
	f.UpdatedAt, f.Expires = now, time.Time{}
	if ttl := s.opts.SaveTTL(cp); ttl > 0 {
		f.Expires = now.Add(ttl)
	}
	if err := write(path, f); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// LoadCheckpoint implements [memory.Checkpoints].
func (s *Store) LoadCheckpoint(ctx context.Context, runID string) (memory.Checkpoint, bool, error) {
	op := fmt.Sprintf("load checkpoint run %q", runID)
	path, unlock, err := s.begin(ctx, op, runID, ".json")
	if err != nil {
		return memory.Checkpoint{}, false, err
	}
	defer unlock()
	f, ok, err := s.read(path)
	if err != nil {
		return memory.Checkpoint{}, false, fmt.Errorf("%s: %w", op, err)
	}
	if !ok {
		return memory.Checkpoint{}, false, nil
	}
	cp := memory.Checkpoint{Digest: f.Digest, UpdatedAt: f.UpdatedAt, State: make(map[string][]byte, len(f.State)+len(f.Bytes))}
	for p, v := range f.State {
		cp.State[p] = []byte(v)
	}
	for p, v := range f.Bytes {
		cp.State[p] = v
	}
	return cp, true, nil
}

// DeleteCheckpoint implements [memory.Checkpoints].
func (s *Store) DeleteCheckpoint(ctx context.Context, runID string) error {
	op := fmt.Sprintf("delete checkpoint run %q", runID)
	path, unlock, err := s.begin(ctx, op, runID, ".json")
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// Sweep removes the checkpoint files that expired and reports how many.
func (s *Store) Sweep(ctx context.Context) (int, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, s.opts.Prefix+"+"+s.opts.Namespace+"+*.json"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		unlock, err := lockFile(filepath.Join(s.dir, ".lock"))
		if err != nil {
			return n, err
		}
		if _, err := os.Stat(p); err == nil {
			if _, ok, err := s.read(p); err == nil && !ok {
				n++
			}
		}
		unlock()
	}
	return n, nil
}
