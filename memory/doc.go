// Package memory owns cogloop's storage: a loop's persisted history
// (OrKa's past_loops with persist_across_runs), per-run checkpoints for
// resume, and the memories of OrKa's memory reader and writer agents.
//
// It defines the [Store] interface (three small parts: [History],
// [Checkpoints], [Memories]), the key schema ([Keyspace]), the recall
// ranking every store shares ([Rank]) and the default store, [InMemory],
// which needs no server. The Redis store lives in memory/redis, the only
// package that imports go-redis; memory/file keeps checkpoints and leases
// as files (laid over another store, for the CLI without Redis);
// memory/storetest is the conformance suite
// that both pass. This package imports only the standard library,
// internal/embedding (the Embedder interface it shares with cognition) and
// internal/plainjson (the one-pass JSON reader of history entries).
//
// # Keys
//
// Every store names its data with [Keyspace.Key]; the Redis store uses the
// names as keys, the in-memory store as map keys:
//
//	<prefix>:<namespace>:loop:<loop id>:past_loops     list   history entries, oldest first
//	<prefix>:<namespace>:loop:<loop id>:past_loop_ids  list   their ids, in step (idempotency)
//	<prefix>:<namespace>:run:<run id>:checkpoint       hash   digest, updated_at, state:<path> (opaque;
//	                                                          the loop node writes a head, one record per
//	                                                          pass and budget records, each its own field)
//	<prefix>:<namespace>:mem:<mem namespace>:memories  hash   memory id → memory JSON
//	<prefix>:<namespace>:mem:<mem namespace>:created   zset   memory id → created (ms)
//	<prefix>:<namespace>:mem:<mem namespace>:expires   zset   memory id → expiry (ms or +inf)
//
// The prefix (default "cogloop") and namespace (default "default") come from
// [Options] and are limited to [A-Za-z0-9_.-]; ids are escaped so that ids
// containing ':', '*', spaces or '%' can neither collide nor address other
// keys. Nothing is ever deleted by pattern: clearing a loop deletes the two
// keys [Keyspace.LoopKeys] names.
//
// # Semantics shared by every store
//
//   - History is capped ([Options.HistoryCap], default 100) and an entry is
//     keyed by (run id, loop path, iteration) with replace semantics: a
//     retried append never duplicates an entry, and a resumed run's redo of
//     an iteration overwrites the discarded attempt in place, so there is at
//     most one entry per iteration, the one the run reported. Concurrent
//     runs of one loop id all land their entries, in arrival order.
//   - Checkpoints merge by loop path and are bound to the workflow digest of
//     their first save ([ErrDigestMismatch]).
//   - Memories are recalled without any model, by keyword overlap (or cosine
//     similarity when vectors are given), threshold, limit and optional decay;
//     see [Rank].
//   - TTLs: see [Options]. Errors wrap [ErrInvalid], [ErrUnavailable],
//     [ErrDigestMismatch] or [ErrClosed] and name the operation.
//
// # Concurrency and lifecycle
//
// Stores are safe for concurrent use by any number of goroutines and every
// operation is idempotent. A store is created by its constructor
// ([NewInMemory], memory/redis.New), shared by all runs of a process, and
// closed once with Close; operations after Close fail with [ErrClosed].
// [InMemory] keeps its data until Close or the end of the process.
//
// # Imports
//
// It imports internal/embedding and internal/plainjson.
package memory
