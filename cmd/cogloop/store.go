package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
)

// storeFlags choose the memory backend.
type storeFlags struct {
	redisURL  string
	namespace string
}

// redisURL is the --redis flag, else $REDIS_URL.
func (f storeFlags) url() string {
	if f.redisURL != "" {
		return f.redisURL
	}
	return os.Getenv("REDIS_URL")
}

// open returns the Redis store when a URL is given, or nil for the in-memory default.
func (f storeFlags) open(ctx context.Context, stderr io.Writer) (memory.Store, error) {
	url := f.url()
	if url == "" {
		return nil, nil
	}
	s, err := redis.New(ctx, url, redis.Options{Options: memory.Options{Namespace: f.namespace}})
	if err != nil {
		return nil, fmt.Errorf("open memory store: %w", err)
	}
	return s, nil
}

var errNeedsRedis = errors.New("needs a store that outlives the process: pass --redis URL or set REDIS_URL")
