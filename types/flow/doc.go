// Package flow owns the control-flow agents of a workflow: [Fork] (type fork) runs
// branches of agents, concurrently or one after the other; [Join] (type join)
// gathers a fork's branch outputs into OrKa's merged shape; [Router] (type router)
// picks the agents that run next from an earlier agent's answer; [Failover]
// (type failover) tries inline children in order until one gives a valid result.
// Semantics follow OrKa's ("Fork/join semantics" and "Router semantics" of
// shared/reference/orka-loop-spec.md §4) with the decisions of DESIGN.md.
//
// Every type here is an ordinary [agents.Agent] built from its YAML definition by
// the factory [Register] adds to a registry.
// Branch agents and routes are agents of the same workflow, found through
// [agents.Builder.Ref] at load time, so an undefined id is a load problem with its
// file:line:col. What the workflow does with their outputs goes through two
// optional abilities that [agents.Sequence] (the orchestrator's run loop) knows:
// a fork is an [agents.Exposer] (its branch agents' outputs are recorded in
// previous_outputs after it, for the join and every later agent), a router is an
// [agents.Director] (its chosen agents run right after it). Inside a loop the same
// happens in every iteration's internal workflow, so a loop's iteration map holds
// the fork, each branch agent, the join and the agents after it.
//
// A fork and a router can also be built in Go ([NewForkFrom] with a
// [ForkConfig], [NewRouterFrom] with a [RouterConfig]); their YAML factories
// read into those configs and build through the same code.
//
// # Fork and join
//
// A fork runs its branches to completion before it returns: a branch is a list
// of agents run in order as an [agents.Sequence]; in parallel mode (the default)
// branches run concurrently on the run's worker pool (internal/workers), at most
// max_concurrency at a time, in
// sequential mode one after the other in declaration order. Each branch writes its
// results into its own slot, so the fork's Children (and previous_outputs) are in
// declaration order whatever the finishing order. A failing branch agent becomes
// an error record and its branch goes on; with fail_fast the first failure
// cancels the other branches and the fork itself fails. A join finds its fork's
// output in previous_outputs and returns {status: done, merged: {agent: output},
// <agent>: output...}.
//
// # Concurrency and lifecycle
//
// Built agents are immutable and safe for concurrent Run calls; a run's state
// (branch results, the chosen route, the failover's tries) lives in locals. A
// fork's Run does not return before every branch goroutine has ended, on success,
// failure, fail_fast cancellation or cancellation of its context; a panic in a
// branch becomes an error with its stack. Events (branch start and end, with the
// fork id and the 1-based branch number, and every branch agent's start and end)
// reach the run's observer from the branch goroutines, which is why an
// [event.Observer] must be safe for concurrent use.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/spend,
// internal/pyvalue and internal/workers.
package flow
