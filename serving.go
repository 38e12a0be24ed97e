package cogloop

// Description is the orchestrator's description: (empty when it has none).
func (w *Workflow) Description() string { return w.wf.Description }

// InputSchema is the JSON Schema of the run's input built from the
// orchestrator's inputs: (an object with those fields), or nil when the
// workflow declares none and takes any input.
func (w *Workflow) InputSchema() map[string]any { return w.wf.InputSchema() }

// MCPServers lists the names of the workflow's MCP servers (mcp_servers:).
func (w *Workflow) MCPServers() []string {
	if w.wf.MCP == nil {
		return nil
	}
	return w.wf.MCP.Names()
}
