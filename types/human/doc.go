// Package human owns the human agent type (type: human): a step that asks a
// person a question and waits for the answer, also as a loop's evaluator,
// and the shapes every part of cogloop shares about it: [Question] (what a
// waiting run asks), [Answer] (what a person gave) and [Check] (is an answer
// one the question takes).
//
// # Waiting
//
// A human step asks its question through the run's callback when there is
// one ([Provide]: a Go service's own UI, the CLI's prompt on a terminal);
// otherwise it saves the question in the run's checkpoint under
// "human:<path>" and stops the run with a [fault.Interrupt] of status
// waiting. An answer is recorded in the same checkpoint state (atomically:
// the root package's Answer), and the continued run (a resume) finds it
// there. Without a checkpoint the step cannot wait and fails with a fatal
// error that says so.
//
// # Lifecycle
//
// Built agents are immutable and safe for concurrent Run calls.
//
// # Imports
//
// It imports agents, agents/event, agents/fault, agents/load,
// internal/jsonschemax and prompt.
package human
