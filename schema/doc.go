// Package schema owns the JSON Schema (draft 2020-12) of cogloop workflow
// files. The schema is not written by hand: [Generate] derives it from the key
// specifications the loader itself records when every registered factory runs
// against a recording config ([orchestrator.RecordSpecs]), plus a short table of
// shapes for keys the loader reads as raw YAML (nested workflows, lists of
// agents, condition trees). workflow.schema.json in this directory is the
// schema of the built-in types; a test fails when it is stale, and
//
//	go generate ./schema
//
// rewrites it. Editors that speak the YAML language server get completion
// from a first line such as
//
//	# yaml-language-server: $schema=https://raw.githubusercontent.com/cogloop/cogloop/main/schema/workflow.schema.json
//
// # Imports
//
// It imports agents, agents/load and orchestrator.
package schema

//go:generate go run github.com/cogloop/cogloop/cmd/cogloop schema --out workflow.schema.json
