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
// It imports agents/event, agents/fault, agents/lease, agents/load,
// agents/secrets, agents/spend, internal/plainjson, internal/pyvalue,
// internal/values, memory, prompt and scoring.
//
// It must not import retry, scripted, the agent types (types/llm, ...), flow,
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
//
// # Adding an agent type
//
// An agent type is a package of its own under types/ (types/llm, types/flow,
// ...); agents/ keeps the contract and the small parts every type uses.
//
// Write a [Factory] that reads its keys from the [load.Config] (every key it
// reads is known; unread keys are load errors), builds what it needs through
// the [Builder] (templates, other agents by id with [Builder.Ref], budgets)
// and returns an [Agent]; register it with [Registry.MustRegister] in the
// package's Register function, and add the package to cogloop.go's wiring.
// What a workflow does around the agent beyond running it is declared with
// the optional interfaces [Exposer] (its children's outputs are recorded
// after it), [Director] (agents it chose run next), [Referrer] and
// [MayRunner] (ids it runs, for the load-time checks). They are read once,
// from the unwrapped agent ([Unwrap]), when its step is made ([NewStep]):
// the builder wraps an agent for timeout: and retry: when its factory does
// not read them, so never type-assert a possibly wrapped agent, and make
// steps with NewStep, not a literal [Step].
package agents
