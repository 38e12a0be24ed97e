// Package mcp owns the Model Context Protocol: the servers a workflow
// declares (orchestrator: mcp_servers:), their sessions for one run (stdio
// commands started in their own process group and killed with it; streamable
// HTTP endpoints with headers read from the environment), and their tools
// offered to LLM agents as server.tool (or server.*) in tools:. It is the only
// importer of the official MCP Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// # Imports
//
// It imports agents, agents/fault, agents/load and internal/jsonschemax.
package mcp
