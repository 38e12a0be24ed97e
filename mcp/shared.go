package mcp

import (
	"context"
	"strings"
	"sync"
)

// pool holds the stdio servers declared with share: process: started by
// the first run that needs one, kept for the runs after it (a queue
// worker's), restarted when it died, and killed with its process group by
// [CloseShared] when the process ends.
var pool = struct {
	mu    sync.Mutex
	conns map[string]*conn
}{conns: map[string]*conn{}}

// sharedKey tells shared servers apart: two workflows' servers share a
// process when name, command and environment (names and values, so two
// workflows loaded with different WithEnv lookups do not share) are the
// same. The key stays in this process's memory.
func sharedKey(srv *Server) string {
	return strings.Join([]string{srv.Name, strings.Join(srv.Command, "\x00"), strings.Join(srv.env(), "\x00")}, "\x01")
}

// sharedConn is srv's shared session, started now if there is none or the
// last one's server is gone.
func sharedConn(ctx context.Context, srv *Server) (*conn, error) {
	key := sharedKey(srv)
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if c := pool.conns[key]; c != nil {
		if !c.gone.Load() {
			return c, nil
		}
		c.close()
		delete(pool.conns, key)
	}
	c, err := dial(ctx, srv)
	if err != nil {
		return nil, err
	}
	c.shared = true
	go func() {
		_ = c.cs.Wait()
		c.gone.Store(true)
	}()
	pool.conns[key] = c
	return c, nil
}

// CloseShared ends every share: process server of this process, killing
// its process group; the CLI calls it before it exits. Runs started later
// start them again.
func CloseShared() {
	pool.mu.Lock()
	conns := pool.conns
	pool.conns = map[string]*conn{}
	pool.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.close() }()
	}
	wg.Wait()
}
