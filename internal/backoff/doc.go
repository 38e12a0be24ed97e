// Package backoff owns the arithmetic of waiting between tries: the wait
// before retry n under a [Policy] (fixed or exponential, capped, jittered,
// floored) and a [Sleep] that ends with its context. It is the one retry
// schedule of the project: agents/retry (model calls and retry: on agents),
// memory/redis (store operations) and queue (asynq's retries of whole runs)
// compute their waits here; each decides by itself which failures to retry.
//
// # Imports
//
// It imports no project package.
package backoff
