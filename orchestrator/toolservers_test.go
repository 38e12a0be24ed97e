package orchestrator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/mcp"
	"github.com/cogloop/cogloop/orchestrator"
)

const mcpFile = `orchestrator:
  id: t
  agents: [a]
  mcp_servers:
    files: {command: [files-server]}
agents:
  - {id: a, type: echo}
`

// Without a tool-server reader (a program that does not link MCP) a file
// that declares mcp_servers is refused at the key, saying how to load it.
func TestMCPServersNeedAReader(t *testing.T) {
	reg := agenttest.Registry()
	_, _, err := orchestrator.Parse([]byte(mcpFile), "wf.yaml", reg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wf.yaml:4:")
	assert.Contains(t, err.Error(), "mcp_servers needs MCP support")
	assert.Contains(t, err.Error(), "cogloop.Load")
}

// With package mcp's reader the servers are read into an *mcp.Set.
func TestMCPServersReadByTheReader(t *testing.T) {
	reg := agenttest.Registry()
	read := func(prev orchestrator.ToolServers, c *load.Config, key string) orchestrator.ToolServers {
		s, _ := prev.(*mcp.Set)
		return mcp.ReadInto(s, c, key)
	}
	wf, _, err := orchestrator.Parse([]byte(mcpFile), "wf.yaml", reg, orchestrator.WithToolServers(read))
	require.NoError(t, err)
	set, ok := wf.MCP.(*mcp.Set)
	require.True(t, ok, "MCP is %T", wf.MCP)
	assert.Equal(t, []string{"files"}, set.Names())
}
