// Package loopnode owns the loop node (type: loop): it runs an internal workflow
// again and again; after each pass it pulls a score from the agents' outputs,
// compares it with a threshold, extracts the pass's lessons (insights,
// improvements, mistakes) into a past_loops history that the next pass's prompts
// read, and stops on the threshold, max_loops, its timeout, cancellation or an
// error of the internal workflow. Behaviour follows OrKa's loop node ([intent] of
// shared/reference/orka-loop-spec.md §1) with the decisions of DESIGN.md.
//
// # Built in Go or read from YAML
//
// [Config] is a loop's definition as a Go value and [NewLoop] its one
// constructor: the YAML factory [New] reads a definition into a Config
// (reporting problems at file:line:col) and builds through NewLoop. Go
// agents inside read the loop state typed (agents.LoopState's Number, Task
// and Past()); the loop's output carries its [Result] (Typed), from which
// the fields templates see are read.
//
// # Scores and stopping
//
// The score comes from score_extraction_config (cognition's strategies), or
// from the agents named by score_from, read on score_scale; the regexes of
// one pass's score and lesson patterns share regex_budget of CPU time (the
// thread's, not the wall clock's, so load does not change outcomes). The loop
// stops when the score reaches score_threshold, after max_loops passes, on its
// timeout, on cancellation, or when an entry of stop_when fires: a list (any
// of it) or {any: [...]}/{all: [...]} of score, evaluator, stable_output,
// while, until, continue_while and stagnation conditions (conditions.go).
// Every pass's loop.iteration event lists each condition, whether it fired
// and why; stop_reason names the one that ended the loop. delay waits
// between passes; max_past_loops and max_length bound what past_loops keeps.
//
// # Budgets
//
// budget: on the loop limits the model calls of all its passes together
// (tokens, cost, calls, in the run's budget tree, [spend.ReadBudget]); a call
// that does not fit is refused and the loop ends with stop_reason budget.
// The spending is journalled with the checkpoint, so a resumed run never
// spends more than the budget across both processes.
//
// # Errors and counts
//
// A pass with a failed agent goes on as in OrKa (on_error: continue) unless
// on_error: stop or max_failed_passes passes in a row with one end the loop
// with stop_reason error. A fatal error ([fault.IsFatal]) cuts the pass short
// and is returned at once; so the run stops. A stop_when expression that cannot
// be evaluated ends the loop with stop_reason error. loops_completed counts
// the passes that ran to the end; a pass cut short is listed in iterations
// with completed: false.
//
// The internal workflow is built through the [agents.Builder] the registry hands
// the factory, so this package never imports the orchestrator; a loop inside an
// internal workflow nests with its own counters and history.
// workflow_ref takes the internal workflow from another file through the same
// builder ([agents.Builder.WorkflowFile]).
//
// # State, interface and per-pass limits
//
// vars/update carry loop state between passes (vars.go): the updates run
// after each completed pass, in order, and the values reach prompts,
// conditions, output_mappings (source: {var}), the output's vars and the
// checkpoint head. inputs/outputs declare the loop's interface (iface.go).
// iteration_timeout cuts a pass short; on_error and max_failed_passes decide
// what follows. Each pass emits loop.pass.start before and loop.iteration
// after it.
//
// # Persistence
//
// With persist_across_runs the loop appends one history entry per pass to the
// run's memory store (history_ttl expires it); a redo of a pass after a resume
// replaces its entry. With checkpoints on, the loop saves a small head after
// every pass and one record per pass, written once (persist.go), so a resumed
// run rebuilds its state exactly and checkpoint traffic is linear in the work.
// Resume (cogloop run --resume, cogloop.WithResume) reads the head and the
// records, restores the history, vars, best score and budget spent, and goes
// on with the next pass, so completed passes are not run again (a workflow
// whose source changed since is refused unless the caller allows it).
// A pass that failed (an error that stopped its workflow, a history append the
// store refused) is not checkpointed: a resume runs it again.
// Each pass record also keeps the head after that pass and the run's budget
// records then, so [ForkState] can cut a run's checkpoint at any pass (the
// checkpoint a fork — cogloop fork, cogloop.WithFork — resumes from;
// fork.go; nested points as outer:2/inner:3, [ParseForkPoint]).
//
// # Concurrency
//
// A built loop is immutable and safe for concurrent Run calls: every run keeps its
// history, counters and best score in locals.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load, agents/retry,
// agents/spend, cognition, cognition/metrics, cognition/scorer,
// internal/plainjson, internal/pyvalue, internal/workers, memory, prompt and
// scoring.
package loopnode
