package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// The Redis scenario runs a real redis-server on loopback, started by the
// project's own redistest package (the one the tests use) through a minimal
// testing.TB: no second copy of the start-up logic to drift.

// benchTB is the part of testing.TB that redistest.Start uses. The embedded
// nil interface only satisfies testing.TB's unexported method; calling
// anything else panics, which would be a bug here.
type benchTB struct {
	testing.TB
	cleanups []func()
	dirs     []string
}

// tbStop is what Fatalf and Skipf panic with; startRedis recovers it.
type tbStop struct{ msg string }

func (t *benchTB) Helper() {}

func (t *benchTB) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *benchTB) TempDir() string {
	dir, err := os.MkdirTemp("", "cogloop-bench-redis-")
	if err != nil {
		panic(tbStop{err.Error()})
	}
	t.dirs = append(t.dirs, dir)
	return dir
}

func (t *benchTB) Fatalf(format string, args ...any) { panic(tbStop{fmt.Sprintf(format, args...)}) }
func (t *benchTB) Skipf(format string, args ...any)  { panic(tbStop{fmt.Sprintf(format, args...)}) }

// close runs the cleanups (stopping the server) and removes the directories.
func (t *benchTB) close() {
	for _, f := range slices.Backward(t.cleanups) {
		f()
	}
	for _, d := range t.dirs {
		_ = os.RemoveAll(d)
	}
}

// startRedis starts a redis-server; skip is the reason when it cannot (no
// binary installed), which makes the scenario report itself skipped.
func startRedis() (srv *redistest.Server, stop func(), skip string, err error) {
	if _, lookErr := exec.LookPath("redis-server"); lookErr != nil && os.Getenv("REDIS_SERVER") == "" {
		return nil, nil, "redis-server is not installed", nil
	}
	tb := &benchTB{}
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(tbStop)
			if !ok {
				panic(r)
			}
			tb.close()
			srv, stop, err = nil, nil, fmt.Errorf("start redis-server: %s", s.msg)
		}
	}()
	srv = redistest.Start(tb)
	return srv, tb.close, "", nil
}
