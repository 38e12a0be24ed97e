// Package redistest runs a real redis-server for tests, the way
// net/http/httptest runs an HTTP server: a child process on a free
// 127.0.0.1 port with its own temporary directory, no RDB snapshots and no
// AOF, stopped when the test ends.
//
// When the redis-server binary is missing the test is skipped, unless the
// environment has CI=true: then a missing binary fails the test, so CI can
// never pass by skipping every Redis test. The binary is looked up on PATH,
// or taken from $REDIS_SERVER.
//
// The package speaks just enough RESP to ping and shut the server down; it
// does not import go-redis.
//
// # Lifecycle
//
// [Start] returns a running server and registers its cleanup. [Server.Stop]
// shuts it down (saving its data to its directory), [Server.Kill] kills it
// (losing data not yet saved), and [Server.Restart] starts it again on the
// same port and directory, with whatever data was last saved. A Server's
// methods must be called from the test goroutine or one synchronised with it.
//
// # Imports
//
// It imports no project package.
package redistest
