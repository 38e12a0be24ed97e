package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/file"
	"github.com/cogloop/cogloop/memory/redis"
)

// storeFlags choose the memory backend.
type storeFlags struct {
	redisURL  string
	namespace string
	recordDir string // --record-dir: without Redis, checkpoints live in <record dir>/checkpoints
}

// redisURL is the --redis flag, else $REDIS_URL.
func (f storeFlags) url() string {
	if f.redisURL != "" {
		return f.redisURL
	}
	return os.Getenv("REDIS_URL")
}

// open returns the store runs keep their checkpoints in: Redis when a URL
// is given; otherwise the checkpoint files beside the run records
// (<record dir>/checkpoints) over an in-memory store for histories and
// memories, so --resume, fork, answer and pause work without Redis. When
// that directory cannot be written it warns on stderr and returns nil: runs
// then checkpoint in the process's memory only.
func (f storeFlags) open(ctx context.Context, stderr io.Writer) (memory.Store, error) {
	url := f.url()
	if url == "" {
		return f.openFiles(stderr)
	}
	s, err := redis.New(ctx, url, redis.Options{Options: memory.Options{Namespace: f.namespace}})
	if err != nil {
		return nil, fmt.Errorf("open memory store: %w", err)
	}
	return s, nil
}

// openRedis is open without the file store: the Redis store when a URL is
// given, or nil for the in-memory default.
func (f storeFlags) openRedis(ctx context.Context, stderr io.Writer) (memory.Store, error) {
	if f.url() == "" {
		return nil, nil
	}
	return f.open(ctx, stderr)
}

// checkpointDir is where the file store keeps checkpoints.
func (f storeFlags) checkpointDir() string {
	d, _ := recordDir(f.recordDir) // a bad size cap is reported by the record's own use
	return filepath.Join(d.Path, "checkpoints")
}

func (f storeFlags) openFiles(stderr io.Writer) (memory.Store, error) {
	opts := memory.Options{Namespace: f.namespace}
	base, err := memory.NewInMemory(opts)
	if err != nil {
		return nil, fmt.Errorf("open memory store: %w", err)
	}
	files, err := file.New(f.checkpointDir(), opts)
	if err != nil {
		_ = base.Close()
		fmt.Fprintf(stderr, "warning: %v; checkpoints stay in this process (no --resume, fork or answer from another one): set --record-dir, or --redis URL\n", err)
		return nil, nil
	}
	return files.Over(base), nil
}

var errNeedsRedis = errors.New("needs a store that outlives the process, and the checkpoint files could not be opened (see the warning above): pass a writable --record-dir DIR, or --redis URL")
