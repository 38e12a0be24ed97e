// Package event owns the event stream every run reports through: the
// [Event] value, the [Observer] function that receives it, and the event
// kinds ([RunStart], [AgentEnd], [LoopIteration], [Warning], ...). The CLI's
// progress line, the JSONL trace, run records, OpenTelemetry spans and tests
// all subscribe to the same stream (agents.Run.Emit sends to it).
//
// # Imports
//
// It imports agents/spend only.
//
// An event carries a [spend.Usage]. The agents package imports it, so it must
// not import agents or anything that does.
package event
