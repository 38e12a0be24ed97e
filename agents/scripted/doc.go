// Package scripted owns the offline model: a [Model] answers an agent's
// calls from a fixed list of [Reply] values (a text with a delay and usage,
// or a failure with an HTTP status and Retry-After), and a [Script]
// ([Parse]: a YAML mapping from agent id to replies, the file behind
// `cogloop run --script`) is an agents.ModelSource that gives each agent its
// own. A call past the end of a list fails with [ErrExhausted], which no
// retry policy retries.
//
// # Imports
//
// It imports agents, agents/fault, agents/load, agents/retry, agents/spend and
// internal/yamlbound.
//
// It must not import the orchestrator, the loop node or the provider agents
// (types/llm).
//
// # Concurrency
//
// A [Model] is safe for concurrent use: each call takes the next reply under
// a mutex.
package scripted
