//go:build !cogloop_core

package cogloop

import (
	"context"
	"net/http"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/mcp"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/cogloop/cogloop/types/act"
	"github.com/cogloop/cogloop/types/llm"
	"github.com/cogloop/cogloop/types/memories"
	"github.com/cogloop/cogloop/types/scout"
	"github.com/cogloop/cogloop/types/search"
	"github.com/cogloop/cogloop/types/validate"
)

// This file wires what links the provider SDKs, the MCP SDK and Go's HTTP
// client: the agent types that call models, tools and the web, MCP servers,
// and WithHTTPClient. A program built with -tags cogloop_core leaves them
// out (builtin_core.go) and is about 8 MB smaller; see README "Binary size".

// httpClient is the HTTP client WithHTTPClient injects.
type httpClient = *http.Client

// WithHTTPClient makes every model call (LLM agents, validators, rag,
// graph-scout's evaluator) and web search of the workflow with client
// instead of the shared default (llm.DefaultHTTPClient): your transport,
// proxy, TLS and otelhttp instrumentation. An agent's timeout stays its
// context's deadline. (Not in a build with -tags cogloop_core.)
func WithHTTPClient(client *http.Client) LoadOption {
	return func(o *loadOptions) { o.inject.client = client }
}

// registerSDKTypes registers the agent types that call models, tools and
// the web, with what the load options inject.
func registerSDKTypes(r *agents.Registry, in injected) {
	llm.RegisterWith(r, llm.Options{Getenv: in.getenv, HTTPClient: in.client, Providers: in.providers})
	memories.RegisterWith(r, memories.Options{Getenv: in.getenv, HTTPClient: in.client})
	validate.RegisterWith(r, validate.Options{Options: llm.Options{Getenv: in.getenv, HTTPClient: in.client, Providers: in.providers}})
	scout.RegisterWith(r, scout.Options{Getenv: in.getenv, HTTPClient: in.client})
	search.RegisterWith(r, search.Options{HTTPClient: in.client})
	act.RegisterWith(r, act.Options{LookupEnv: in.lookup})
}

// checkProviders refuses Go providers named like a built-in one.
func checkProviders(providers map[string]agents.Model) error {
	return llm.CheckProviders(providers)
}

// MCPTools starts or contacts the workflow's MCP servers (mcp_servers:),
// checks the server tools its agents name, and lists each server's tools;
// the servers are closed again. A workflow without servers lists none.
// (Not in a build with -tags cogloop_core.)
func (w *Workflow) MCPTools(ctx context.Context) ([]mcp.ServerTools, error) {
	return w.mcpSet().List(ctx)
}

// startMCP starts the run's MCP servers (those the model source stands in
// for answered by it); stop closes them when the run ends. A server that
// does not start, or lacks a tool an agent names, fails the run before any
// agent.
func (w *Workflow) startMCP(ctx context.Context, models agents.ModelSource) (runCtx context.Context, stop func(), err error) {
	runCtx, sessions, err := w.mcpSet().Start(ctx, mcpStandIns(models))
	if err != nil {
		return ctx, nil, err
	}
	return runCtx, func() { _ = sessions.Close() }, nil
}

// mcpSet is the workflow's MCP servers; nil for a workflow without (one
// built in Go), which starts none.
func (w *Workflow) mcpSet() *mcp.Set {
	s, _ := w.wf.MCP.(*mcp.Set)
	return s
}

// useMCPEnv makes the workflow's MCP servers read env:, PATH and header
// ${VAR}s through lookup (WithEnv) instead of the process environment.
func useMCPEnv(wf *orchestrator.Workflow, lookup func(string) (string, bool)) {
	if s, ok := wf.MCP.(*mcp.Set); ok && s != nil {
		s.UseEnv(lookup)
	}
}

// readMCP reads a file's mcp_servers for the orchestrator (package mcp's
// reader; the orchestrator does not link the MCP SDK itself).
func readMCP(prev orchestrator.ToolServers, c *load.Config, key string) orchestrator.ToolServers {
	s, _ := prev.(*mcp.Set)
	return mcp.ReadInto(s, c, key)
}

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
