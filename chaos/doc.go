// Package chaos holds cogloop's chaos suite, tests only: runs against a real
// redis-server (started by memory/redis/redistest) through a TCP fault proxy
// (latency beyond the read timeout, connection resets, a black hole), Redis
// killed with -9 under appendfsync always and restarted, and the cogloop
// binary killed with -9 at random points of pass 3 and resumed.
//
// Every scenario checks the same invariants: no gap and no duplicate in the
// persisted history, the history equal to what the run reports, budgets never
// exceeded across resumes, every run ending or failing with a clear error
// within its deadline, and goroutines back to their baseline.
//
// # Imports
//
// It imports no project package.
package chaos
