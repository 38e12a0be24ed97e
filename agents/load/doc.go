// Package load owns reading workflow definitions from YAML with their file
// positions: the [Config] reader every agent factory reads its keys through
// (typed reads with ranges and defaults, unknown-key checks with "did you
// mean" hints from [Closest], [ParseDuration]'s three duration spellings),
// the [Problems] it records at [Pos]itions, and the [Error] a load with
// errors returns, every problem in file order. A recording Config
// ([NewRecording]) writes the [Spec] of the keys a factory reads instead;
// the JSON Schema of workflow files is generated from those specs.
//
// # Imports
//
// It imports internal/loaderr, internal/textdist and internal/yamlnode.
//
// Agents, scoring and every loader import it, so it must not import them (nor
// anything under agents/).
//
// # Concurrency
//
// [Problems] is safe for concurrent use; a [Config] belongs to the one
// factory reading it.
package load
