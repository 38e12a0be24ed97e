// Package orchestrator owns workflows: it reads an OrKa-schema YAML file (bounded in
// size and alias expansion, every problem reported with file:line:col), builds its
// agents through an [agents.Registry], orders the run queue (depends_on), and runs
// it as an [agents.Sequence], recording each agent's output in previous_outputs and
// reporting every step as events.
//
// Control flow stays out of this package: fork, join, router and failover are
// agents (package flow) that the queue runs like any other. Two optional
// abilities let them shape the run without the orchestrator knowing their types:
// an [agents.Exposer] (a fork) has its children's outputs recorded after its own,
// an [agents.Director] (a router) has the agents it chose run right after it. At
// load time every factory gets an [agents.Builder] whose work this package
// does (it is the [agents.Workspace]): agents' types and definitions by id,
// descriptions of the visible agents (with the graph-scout hints capabilities
// and is_terminal read on every definition) and a resolver for ids chosen at
// run time, nested workflows and workflow_ref files, templates, budgets and
// the scoring catalog. The builder warns when a queued agent is also run by an
// [agents.Referrer] (a fork's branch agent, a router's route), where it would run
// twice.
//
// # Common keys, budgets and pricing
//
// Besides id, type and depends_on, the builder owns retry: on any agent whose
// factory does not read it (see [retry.Wrap]). The orchestrator block
// takes budget: {max_tokens, max_cost}, a scope every call of the workflow must
// fit ([spend.Budget]), and, on the top-level orchestrator only, pricing: (a
// table {<model>: {prompt, completion}} per 1,000 tokens, or the name of a file
// in that form) on top of the built-in table. At the end of a load every model
// in use must have a price when any budget of the file limits cost (an error
// naming the model, at its position); when budgets limit only tokens, an
// unpriced model is a warning.
//
// # Template names
//
// At the end of a load every template the builder parsed is checked where its
// agent runs (names.go): undefined functions, filters and tests are errors;
// previous_outputs ids no agent can have run before, and variables nothing
// binds, are warnings with a did-you-mean. A loop tells the builder what it
// binds for the agents of its internal workflow (ChildVars) and for its own
// past_loops_metadata templates (TemplateScope).
//
// A built [Workflow] is itself an [agents.Agent], so a loop runs one as its
// internal workflow through its [agents.Builder] without importing this
// package.
//
// A file's mcp_servers are read by the reader [WithToolServers] gives
// (package mcp's; cogloop passes it), so this package does not link the MCP
// SDK: a program that builds its workflow in Go (cogloop.New) need not.
//
// # Concurrency
//
// A built Workflow is immutable and safe for concurrent Run calls; each run keeps
// its state (the queue position, routes inserted, outputs recorded) in locals.
//
// # Imports
//
// It imports agents, agents/fault, agents/load, agents/retry, agents/spend,
// internal/jsonschemax, internal/yamlbound, prompt and scoring.
package orchestrator
