// Package agents owns what every runnable unit of a workflow shares: the [Agent]
// interface and its [Func] adapter, the per-call [Input] and the [Output] an agent
// returns, the ordered [Outputs] of agents already run, the event stream ([Event],
// [Observer]), the model seam ([Model]) with the offline [Scripted] model, the
// [Registry] that turns YAML agent definitions into agents, and the [Config] reader
// that keeps every problem tied to its file position.
//
// # Concurrency
//
// Built agents are immutable and safe for concurrent Run calls; per-run state lives
// in the [Input] and in locals. A [Run] value is shared by every agent of one run and
// only holds things that are safe to share (an observer, a model source, ids).
//
// # Lifecycle
//
// A [Registry] is a value: callers register the types they want (cogloop.go wires
// the built-in ones) and then build agents from [Spec]s. Factories receive a
// [Builder] so composite types (loop, fork, failover) can build their children
// without importing the orchestrator.
package agents
