// Package lease gives a run id to one live process at a time: a [Lease]
// is taken in the run's store ([memory.Leases]: Redis SET NX with a token and
// a TTL) before the run starts, renewed in the background while it goes on,
// checked before every model call and carried by every checkpoint save, and
// released at the end. A second run, resume or worker on a live run id is
// refused with an error naming the holder and when its lease expires; a
// process that lost its lease stops before its next model call.
//
// # Lifecycle
//
// [Take] starts one goroutine that renews the lease every third of its
// TTL; [Lease.Release] stops it. A lease is safe for concurrent use.
//
// # Imports
//
// It imports agents/fault and memory.
//
// The agents package imports it (agents.Run.Lease, agents.Checkpoint.FencedBy).
package lease
