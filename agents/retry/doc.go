// Package retry owns trying a failed call again. One mechanism retries every
// agent: a [Policy] (YAML retry: {type, count, interval, max_interval,
// jitter, on}, read by [ReadPolicy]) run by a [Retrier], which classifies
// failures ([Classify]: a [CallError]'s HTTP status, network errors,
// fatal and budget refusals), waits with backoff, jitter and the server's
// Retry-After ([After]), and emits an agent.retry event per retry. Agents
// that call models (package llm, validators, memory agents) read retry:
// themselves, with [DefaultLLM] for the keys left out, and retry around each
// model call; for any other agent the workflow builder reads it, with
// [DefaultAgent], and wraps the agent with [Wrap]. The key belongs to
// whoever reads it (load.Config.Known), so no agent is retried twice over.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/secrets,
// agents/spend and internal/backoff.
//
// It must not import scripted, the provider agents, the orchestrator or the
// loop node.
//
// # Concurrency
//
// A [Retrier] and an [Agent] hold no per-call state and are safe for
// concurrent use if their functions and the wrapped agent are.
package retry
