// Package redis is the [memory.Store] on a Redis server (7.0 or later),
// and the only cogloop package that imports go-redis. It holds loop
// histories that persist across runs and processes, run checkpoints that a
// resumed run (in another process) reads back, and memory agents' memories.
// Its subpackage redistest starts a throwaway redis-server for tests.
//
// # Keys and atomicity
//
// Keys come from [memory.Keyspace] (see package memory for the schema).
// Every write is one Lua script, atomic on the server and one round trip:
// an append checks the entry id against the loop's id list (LPOS), pushes
// entry and id, trims both lists to the cap and sets their TTL; a
// checkpoint save checks the digest and merges the state fields; a remember
// drops expired memories, writes, trims to the cap and sets the TTL. Reads
// are one command each (LRANGE, HGETALL). [Store.RoundTrips] counts
// requests, for the benchmark.
//
// # Failures
//
// go-redis's own retries are off; [Store] retries network errors, timeouts
// and LOADING/BUSY/TRYAGAIN replies itself, with doubling backoff (the
// project's one retry schedule, internal/backoff, as agents/retry's), at most
// [Options.Retries] times and within [Options.OpTimeout] (2 s by default).
// This is safe because every operation is idempotent: a replayed append
// whose first reply was lost finds its id and rewrites the same entry in place. When the tries
// run out the error wraps [memory.ErrUnavailable] and names the server
// address (never the password), the operation and its arguments, e.g.
//
//	redis 127.0.0.1:6379: append history loop "improve" run "r1" iteration 3:
//	memory store unavailable (5 attempts): dial tcp 127.0.0.1:6379: connect: connection refused
//
// so the caller knows exactly which write did not happen. [New] pings once
// with short timeouts (dial 500 ms, I/O 1 s), so an unreachable server is
// reported at once.
//
// # Concurrency and lifecycle
//
// A [Store] is safe for concurrent use and holds a connection pool; create
// one per process with [New] and Close it at exit. Any number of processes
// may share a server: concurrent appends to one loop all land.
//
// # Imports
//
// It imports internal/backoff, internal/plainjson and memory.
package redis
