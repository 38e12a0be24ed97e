package cogloop

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/mcp"
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
func (w *Workflow) MCPServers() []string { return w.wf.MCP.Names() }
