// Package configs holds the data files that ship inside the cogloop binary.
//
// # Presets
//
// [Presets] embeds presets/*.yaml: the boolean-criteria scoring presets
// (contexts loop_convergence, quality, graphscout, validation; levels strict,
// moderate, lenient) that the loop node's scoring block, loop_validator and
// plan_validator read through package scoring. The files are data, described
// in package scoring; a test loads every one of them.
//
// The package exists because go:embed cannot reach files in parent
// directories: the files live here and the Go code that reads them lives in
// scoring.
package configs
