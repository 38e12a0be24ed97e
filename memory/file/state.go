package file

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// LoadState implements [memory.States].
func (s *Store) LoadState(ctx context.Context, runID, path string) ([]byte, bool, error) {
	op := fmt.Sprintf("load state %q of run %q", path, runID)
	fpath, unlock, err := s.begin(ctx, op, runID, ".json")
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	f, ok, err := s.read(fpath)
	if err != nil || !ok {
		return nil, false, wrapOp(op, err)
	}
	v, ok := f.get(path)
	return v, ok, nil
}

// SwapState implements [memory.States]: the compare and the write happen
// under the directory's lock, so of two processes racing exactly one wins.
func (s *Store) SwapState(ctx context.Context, runID, path string, old, new []byte) (bool, error) {
	op := fmt.Sprintf("swap state %q of run %q", path, runID)
	fpath, unlock, err := s.begin(ctx, op, runID, ".json")
	if err != nil {
		return false, err
	}
	defer unlock()
	f, ok, err := s.read(fpath)
	if err != nil || !ok {
		return false, wrapOp(op, err)
	}
	cur, ok := f.get(path)
	switch {
	case new == nil && !ok, new != nil && ok && bytes.Equal(cur, new):
		return true, nil // done already
	case old == nil && ok, old != nil && (!ok || !bytes.Equal(cur, old)):
		return false, nil
	}
	f.set(path, new)
	f.UpdatedAt = s.opts.Clock()
	if err := write(fpath, f); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	return true, nil
}

// wrapOp puts op in front of a non-nil err.
func wrapOp(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// get returns the state at path, JSON or not.
func (f *file) get(path string) ([]byte, bool) {
	if v, ok := f.State[path]; ok {
		return bytes.Clone(v), true
	}
	v, ok := f.Bytes[path]
	return bytes.Clone(v), ok
}

// set replaces the state at path with v (nil deletes it).
func (f *file) set(path string, v []byte) {
	delete(f.State, path)
	delete(f.Bytes, path)
	switch {
	case v == nil:
	case json.Valid(v):
		if f.State == nil {
			f.State = map[string]json.RawMessage{}
		}
		f.State[path] = bytes.Clone(v)
	default:
		if f.Bytes == nil {
			f.Bytes = map[string][]byte{}
		}
		f.Bytes[path] = bytes.Clone(v)
	}
}
