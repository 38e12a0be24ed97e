// Package agents owns what every runnable unit of a workflow shares: the [Agent]
// interface and its [Func] adapter, the per-call [Input] and the [Output] an
// agent returns, the ordered [Outputs] of agents already run, the [Run] every
// agent of one run shares (its event observer, models, store, [Checkpoint] and
// secrets), the model seam ([Model], [Request], [Reply]), the [Registry] that
// turns YAML agent definitions into agents through their [Factory], and the
// step runner ([RunStep], [Sequence]) that runs agents as a workflow does:
// events, error records, paths, panics.
//
// The concerns around it have packages of their own, below it: the config
// reader and load problems (agents/load), where a failure happened and
// whether it is fatal (agents/fault), usage, pricing and budgets
// (agents/spend), the event stream (agents/event) and secrets
// (agents/secrets), the run's lease on its id (agents/lease). Above it, importing it: retries (agents/retry) and the
// offline scripted model (agents/scripted).
//
// # Imports
//
// agents imports load, fault, lease, spend, event, secrets, prompt, memory, scoring
// and internal packages. It
// must not import retry, scripted, the agent types (agents/llm, ...), flow,
// loopnode or the orchestrator: those import it.
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
// the built-in ones) and then build agents from their definitions. Every
// factory receives a [Builder], the one build context: the workflow being
// built (its definitions, nested workflows, templates, budgets, scoring
// presets), so composite types (loop, fork, failover) build their children
// without importing the orchestrator, which does the work behind it.
package agents
