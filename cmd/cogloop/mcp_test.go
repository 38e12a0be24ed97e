package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/internal/nettest"
)

// mcpEcho serves an SDK MCP server with one tool, echo, over streamable HTTP.
func mcpEcho(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "1"}, nil)
	type in struct {
		Message string `json:"message"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo a message."},
		func(_ context.Context, _ *sdk.CallToolRequest, a in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Message}}}, nil, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func mcpWorkflow(t *testing.T, url, tools string) string {
	t.Helper()
	wf := filepath.Join(t.TempDir(), "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(fmt.Sprintf(`orchestrator:
  id: t
  agents: [asker]
  mcp_servers:
    e: {url: %q}
agents:
  - {id: asker, type: openai-answer, model: m, prompt: "{{ input }}", tools: %s}
`, url, tools)), 0o600))
	return wf
}

// mcp tools lists a server's tools with their schemas; validate stays
// offline unless --connect, which checks the servers and the tools named.
func TestMCPToolsAndValidateConnect(t *testing.T) {
	wf := mcpWorkflow(t, mcpEcho(t), "[e.echo]")
	code, out, errs := runCLI(t, "mcp", "tools", wf)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "mcp server \"e\" (url http://127.0.0.1:")
	assert.Contains(t, out, "1 tools\n  e.echo  Echo a message.\n    {")
	assert.Contains(t, out, `"message":{"type":"string"}`)

	code, out, errs = runCLI(t, "validate", wf, "--connect")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ok, 1 tools")

	bad := mcpWorkflow(t, mcpEcho(t), "[e.ecko]")
	code, _, errs = runCLI(t, "validate", bad, "--connect")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "did you mean e.echo?")

	down := mcpWorkflow(t, "http://"+nettest.ClosedAddr(t)+"/mcp", "[e.echo]")
	code, out, errs = runCLI(t, "validate", down)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "ok (workflow")
	code, _, errs = runCLI(t, "validate", down, "--connect")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `mcp server "e"`)
	assert.Contains(t, errs, "check that the server runs")
	code, _, errs = runCLI(t, "mcp", "tools", down)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `mcp server "e"`)
}
