// Package agents owns what every runnable unit of a workflow shares: the [Agent]
// interface and its [Func] adapter, the per-call [Input] and the [Output] an agent
// returns, the ordered [Outputs] of agents already run, the event stream ([Event],
// [Observer]), the model seam ([Model]) with the offline [Scripted] model, the
// [Registry] that turns YAML agent definitions into agents, and the [Config] reader
// that keeps every problem tied to its file position.
//
// # Retries
//
// One mechanism retries every agent: a [RetryPolicy] (YAML retry: {type, count,
// interval, max_interval, jitter, on}, read by [ReadRetryPolicy]) run by a
// [Retrier], which classifies failures ([Classify]), waits with backoff and
// jitter and emits an agent.retry event per retry. Agents that call models
// (package llm, validators, memory agents) read retry: themselves, with
// [DefaultLLMRetry] for the keys left out, and retry around each model call;
// for any other agent the workflow builder reads it, with [DefaultAgentRetry],
// and wraps the agent with [WithRetry]. The key belongs to whoever reads it
// ([Config.Known]), so no agent is retried twice over.
//
// # Budgets and pricing
//
// A [Budget] is one scope of a run's spending (the run, a workflow or a loop
// with budget: {max_tokens, max_cost}, read by [ReadBudget]); scopes nest with
// [Budget.Child] and travel in [Input].Budget. A model call reserves its worst
// case ([WorstCase]) in its scope and every enclosing one before it is made and
// is refused with [ErrBudgetExceeded] when it does not fit; afterwards the
// actual usage is counted and priced with the run's [Pricing] (per 1,000
// tokens; [DefaultPricing] is configs/pricing.yaml). [Usage] carries the cost,
// so every sum of usage (a step, a workflow, a loop iteration, a run) sums the
// cost too. Scopes opened with [Budget.ChildAt] record what they commit in the
// run's [BudgetJournal] (the [Checkpoint]) before and after every call, so a
// resumed run goes on from what the dead one spent, the call in flight at its
// worst case.
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
