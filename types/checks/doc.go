// Package checks holds invariant_validator, OrKa's deterministic agent that
// checks a run's execution record and calls no model.
//
// The record it checks is, in order of preference: execution_data given in
// the definition (under params: or at top level), the JSON (or YAML) after an
// EXECUTION_DATA_JSON: marker in its rendered prompt (OrKa's
// get_execution_artifacts() idiom), or — beyond OrKa, which then checks an
// empty record — the run's own record: the outputs of the agents already run
// ([agents.Input].Previous), their forks, routers, failed agents and loops.
// The checks and the output are OrKa's: fork_join_integrity,
// routing_integrity, cycle_detection, tool_integrity, schema_compliance,
// depth_compliance, critical_failures_detected and validation_summary; cogloop
// adds loop_integrity (a loop that stopped on an error).
//
// The agent is immutable and safe for concurrent Run calls.
//
// # Imports
//
// It imports agents, agents/event, agents/load, internal/values and prompt.
package checks
