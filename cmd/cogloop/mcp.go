package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/mcp"
)

const mcpHelp = `usage: cogloop mcp tools WORKFLOW.yaml [flags]

Starts (or contacts) the MCP servers of the workflow (orchestrator:
mcp_servers:), checks the server tools its agents name in tools:, and lists
every server's tools with their input schemas; the servers are stopped again.
Exit codes: 0 ok, 1 a server did not start or lacks a named tool, 2 bad usage
or invalid workflow.

flags:
  --json            print the servers and their tools as JSON
  --strict          every load warning is an error
  --presets DIR     add (or override) scoring presets from DIR
`

func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "serve":
		return cmdMCPServe(ctx, args[1:], stdout, stderr)
	case len(args) == 0 || args[0] != "tools":
		return usageError(stderr, "mcp", errors.New("mcp takes a subcommand: tools or serve"))
	}
	fs := newFlagSet("mcp", stderr)
	var presets string
	var strict, asJSON bool
	fs.StringVar(&presets, "presets", "", "")
	fs.BoolVar(&strict, "strict", false, "")
	fs.BoolVar(&asJSON, "json", false, "")
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return usageError(stderr, "mcp", err)
	}
	if len(pos) != 1 {
		return usageError(stderr, "mcp", errors.New("mcp tools takes one workflow file"))
	}
	wf, err := cogloop.Load(pos[0], loadOptions(presets, strict)...)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	printWarnings(stderr, wf.Warnings)
	servers, err := wf.MCPTools(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", pos[0], err)
		return exitFailure
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if servers == nil {
			servers = []mcp.ServerTools{}
		}
		if err := enc.Encode(servers); err != nil {
			fmt.Fprintln(stderr, err)
			return exitFailure
		}
		return exitOK
	}
	if len(servers) == 0 {
		fmt.Fprintf(stdout, "%s: no mcp_servers\n", pos[0])
	}
	for _, s := range servers {
		fmt.Fprintf(stdout, "%s: %d tools\n", s.What, len(s.Tools))
		for _, t := range s.Tools {
			schema, _ := json.Marshal(t.InputSchema)
			fmt.Fprintf(stdout, "  %s  %s\n    %s\n", t.Name, t.Description, schema)
		}
	}
	return exitOK
}
