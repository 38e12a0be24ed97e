// Package mcp owns the Model Context Protocol, both ways.
//
// As a client: the servers a workflow declares (orchestrator: mcp_servers:,
// also in workflow_ref files), their sessions for one run (stdio commands
// started in their own process group and killed with it; streamable HTTP
// endpoints with headers read from the environment; share: process servers
// kept for every run of the process until [CloseShared]; servers a script
// stands in for, answered by an in-process server from scripted replies),
// and their tools offered to LLM agents as server.tool (or server.*) in
// tools:.
//
// As a server: a [Host] offers workflows as tools ([Offer]: a name, a
// description, an input schema and a run function) over stdio or streamable
// HTTP with an optional bearer token, sending progress notifications while
// a call runs and canceling its context when the client cancels; `cogloop
// mcp serve` builds the offers.
//
// It is the only importer of the official MCP Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// # Imports
//
// It imports agents, agents/fault, agents/load and internal/jsonschemax.
package mcp
