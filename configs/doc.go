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
// # Pricing
//
// [Pricing] embeds pricing.yaml: the price of each well-known hosted model, in
// US dollars per 1,000 prompt and completion tokens, with the date the prices
// were checked. Budgets with max_cost compute costs from it (package agents/spend,
// [github.com/cogloop/cogloop/agents/spend.DefaultPricing]); a workflow overrides or
// adds prices with pricing: on its orchestrator.
//
// The package exists because go:embed cannot reach files in parent
// directories: the files live here and the Go code that reads them lives in
// scoring.
//
// # Imports
//
// It imports no project package.
package configs
