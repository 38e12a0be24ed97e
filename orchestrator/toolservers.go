package orchestrator

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// ToolServers are a file's tool servers (mcp_servers:) as the builder sees
// them: the tools its agents name (server.tool). Package mcp's Set is one;
// the orchestrator does not import it, so a program that builds workflows
// in Go does not link the MCP SDK (whose package initialisation alone is
// megabytes of binary).
type ToolServers interface {
	// Tool returns the tool name names, ok false when its server prefix
	// names no server.
	Tool(name string, pos load.Pos) (*agents.Tool, bool)
	// Names lists the server names.
	Names() []string
}

// ToolServerReader reads the servers under key of c, adding them to prev
// (nil for the top-level file; the servers read so far for a workflow_ref
// file's), reports its problems on c, and returns the servers. In recording
// mode it records the key's spec.
type ToolServerReader func(prev ToolServers, c *load.Config, key string) ToolServers

// WithToolServers reads mcp_servers with read (cogloop passes package mcp's
// reader). Without it a file that declares mcp_servers is refused.
func WithToolServers(read ToolServerReader) Option {
	return func(o *options) { o.servers = read }
}

// readToolServers reads the orchestrator's mcp_servers with the reader the
// options gave; prev are the servers read so far.
func (b *builder) readToolServers(prev ToolServers, orch *load.Config) ToolServers {
	if b.opts.servers != nil {
		return b.opts.servers(prev, orch, "mcp_servers")
	}
	if orch.Recording() {
		orch.Decode("mcp_servers", new(any)) // a map of names the user picks: any object
		return prev
	}
	if orch.Has("mcp_servers") {
		orch.Errorf("mcp_servers", "mcp_servers needs MCP support, which this program's loader does not have: load the file with cogloop.Load or cogloop.Parse (or pass orchestrator.WithToolServers)")
	}
	return prev
}
