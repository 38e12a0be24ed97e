package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cogloop/cogloop/agents"
)

// StandIns answer the tools of servers from scripted replies instead of
// starting them (a --script file's mcp:NAME entries): server name → tool
// name → a model whose next reply answers each call.
type StandIns map[string]map[string]agents.Model

// standIn is srv answered by tools: an in-process SDK server the run
// connects to as to the real one (tools listed, arguments checked, results
// mapped the same way). Its tools take any object.
func standIn(ctx context.Context, srv *Server, tools map[string]agents.Model) (*conn, error) {
	s := sdk.NewServer(&sdk.Implementation{Name: "cogloop-script:" + srv.Name, Version: "1"}, nil)
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		m := tools[name]
		s.AddTool(&sdk.Tool{Name: name, Description: fmt.Sprintf("scripted stand-in for %s.%s", srv.Name, name),
			InputSchema: map[string]any{"type": "object"}},
			func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				r, err := m.Generate(ctx, agents.Request{})
				if err != nil {
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: r.Text}}}, nil
			})
	}
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: its scripted stand-in did not start: %w", srv.What(), err)
	}
	c := &conn{srv: srv, standIn: ss}
	cs, err := sdk.NewClient(client, nil).Connect(ctx, ct, nil)
	if err != nil {
		_ = ss.Close()
		return nil, fmt.Errorf("%s: its scripted stand-in did not initialize: %w", srv.What(), err)
	}
	c.cs = cs
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			c.close()
			return nil, fmt.Errorf("%s: its scripted stand-in did not list its tools: %w", srv.What(), err)
		}
		c.tools = append(c.tools, tool)
	}
	return c, nil
}
