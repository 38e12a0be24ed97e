// Package legacy holds OrKa's small agent types that call no model, and its
// type aliases:
//
//   - failing: OrKa's test node; it waits (5s by default, delay: to change
//     it) and fails, to exercise failover;
//   - binary: OrKa's rule-based BinaryAgent; true when the input names yes,
//     true or correct (a load warning says it calls no model);
//   - classification: OrKa's deprecated ClassificationAgent; it always
//     answers "deprecated" (a load warning says so);
//   - memory-reader, memory-writer: the memory type with config.operation
//     read or write, as OrKa's documentation writes them.
//
// The agents are immutable and safe for concurrent Run calls. [Register] adds
// the types to a registry that already holds memory (for the aliases).
//
// # Imports
//
// It imports agents, agents/load, agents/retry and prompt.
package legacy
