package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
)

// errNotDurable: the queue's Redis keeps nothing on disk.
var errNotDurable = errors.New("redis keeps nothing on disk (appendonly no, save \"\"): a restart of the server loses every queued run and its result; start it with --appendonly yes (see README, queue quick start)")

// checkDurable reads the queue server's persistence settings and warns, on
// stderr, when neither AOF nor RDB is on; under strict it is an error. A
// server whose settings cannot be read is a warning of its own.
func checkDurable(ctx context.Context, url, cmd string, strict bool, stderr io.Writer) error {
	s, err := redis.New(ctx, url, redis.Options{Options: memory.Options{}})
	if err != nil {
		return nil // the queue's own connection reports an unreachable server
	}
	defer func() { _ = s.Close() }()
	p, err := s.Persistence(ctx)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "cogloop %s: warning: cannot tell whether redis persists the queue: %v\n", cmd, err)
		return nil
	case p.Durable():
		return nil
	case strict:
		return fmt.Errorf("%w (an error under --strict)", errNotDurable)
	}
	fmt.Fprintf(stderr, "cogloop %s: WARNING: %v\n", cmd, errNotDurable)
	return nil
}
