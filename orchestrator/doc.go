// Package orchestrator owns workflows: it reads an OrKa-schema YAML file (bounded in
// size and alias expansion, every problem reported with file:line:col), builds its
// agents through an [agents.Registry], orders the run queue (depends_on), and runs
// it in sequence, recording each agent's output in previous_outputs and reporting
// every step as events.
//
// A built [Workflow] is itself an [agents.Agent], so a loop runs one as its
// internal workflow through the [agents.Builder] interface without importing this
// package.
//
// # Concurrency
//
// A built Workflow is immutable and safe for concurrent Run calls; each run keeps
// its state in locals.
package orchestrator
