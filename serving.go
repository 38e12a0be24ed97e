package cogloop

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/mcp"
	"github.com/cogloop/cogloop/orchestrator"
)

// Description is the orchestrator's description: (empty when it has none).
func (w *Workflow) Description() string { return w.wf.Description }

// InputSchema is the JSON Schema of the run's input built from the
// orchestrator's inputs: (an object with those fields), or nil when the
// workflow declares none and takes any input.
func (w *Workflow) InputSchema() map[string]any { return w.wf.InputSchema() }

// mcpStandIns are the MCP servers a model source (a --script file's
// mcp:NAME entries) answers instead of the real servers.
func mcpStandIns(src agents.ModelSource) mcp.StandIns {
	s, ok := src.(interface {
		ServerStandIns() map[string]map[string]agents.Model
	})
	if !ok {
		return nil
	}
	return s.ServerStandIns()
}

// MCPServers lists the names of the workflow's MCP servers (mcp_servers:).
func (w *Workflow) MCPServers() []string { return w.mcpSet().Names() }

// mcpSet is the workflow's MCP servers; nil for a workflow without (one
// built in Go), which starts none.
func (w *Workflow) mcpSet() *mcp.Set {
	s, _ := w.wf.MCP.(*mcp.Set)
	return s
}

// readMCP reads a file's mcp_servers for the orchestrator (package mcp's
// reader; the orchestrator does not link the MCP SDK itself).
func readMCP(prev orchestrator.ToolServers, c *load.Config, key string) orchestrator.ToolServers {
	s, _ := prev.(*mcp.Set)
	return mcp.ReadInto(s, c, key)
}
