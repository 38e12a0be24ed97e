// Package storetest is the conformance suite for [memory.Store]
// implementations, in the manner of testing/fstest: a store that passes
// [Run] behaves like every other store to the loop node, the memory agents
// and the CLI.
//
// The suite checks history order, limits, cap, appends keyed by (run, loop
// path, iteration) with replace semantics (replayed writes, a resumed run's
// redo), concurrent appenders, key isolation for ids full of
// ':', '*', spaces and '%', checkpoint merge, digest binding and delete,
// memory recall (keywords, threshold, limit, metadata, vectors, decay,
// expiry, cap), cancelled contexts and Close. Server-specific behaviour
// (retries, outages, key TTLs on the server) is tested next to each store.
//
// Run creates stores through the caller's function, one or more per
// subtest, each with a fresh namespace, and closes them when the subtest
// ends; subtests run sequentially.
//
// Two pieces serve a store's own tests too: [ConcurrentAppends] (several
// clients of one server appending at once) and [Clock], a fake clock for a
// store and the agents that share it.
//
// # Imports
//
// It imports memory only.
package storetest
