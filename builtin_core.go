//go:build cogloop_core

package cogloop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/orchestrator"
)

// A core build (-tags cogloop_core) leaves out what links the provider
// SDKs, the MCP SDK and Go's HTTP client (builtin.go): a workflow file that
// uses those agent types or mcp_servers is refused at load, naming the tag.

// coreOnly is the advice of every refusal.
const coreOnly = "this program was built with -tags cogloop_core, which leaves out the agent types that call models, tools and the web and MCP servers: build it without the tag"

// httpClient: a core build injects no HTTP client.
type httpClient = *struct{}

// registerSDKTypes registers each left-out type as a factory that refuses
// the agent with the reason.
func registerSDKTypes(r *agents.Registry, _ injected) {
	for _, typ := range sdkTypes {
		r.MustRegister(typ, func(_ *agents.Builder, c *load.Config) (agents.Agent, error) {
			c.Accept(c.Keys()...) // the refusal is the one problem of the agent
			return nil, fmt.Errorf("agent type %q is not in this program: %s", typ, coreOnly)
		})
	}
}

// checkProviders: Go providers answer LLM agents, which a core build has not.
func checkProviders(providers map[string]agents.Model) error {
	if len(providers) == 0 {
		return nil
	}
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	return fmt.Errorf("providers %s answer LLM agents, and %s", strings.Join(names, ", "), coreOnly)
}

// startMCP: a core build has no MCP servers to start.
func (w *Workflow) startMCP(ctx context.Context, _ agents.ModelSource) (context.Context, func(), error) {
	if w.wf.MCP != nil {
		return ctx, nil, errors.New("mcp_servers: " + coreOnly)
	}
	return ctx, func() {}, nil
}

// readMCP refuses a file's mcp_servers (recording its key's spec).
func readMCP(prev orchestrator.ToolServers, c *load.Config, key string) orchestrator.ToolServers {
	if c.Recording() {
		c.Decode(key, new(any))
		return prev
	}
	if c.Has(key) {
		c.Errorf(key, "mcp_servers: %s", coreOnly)
	}
	return prev
}

// useMCPEnv has nothing to do: this build refuses mcp_servers.
func useMCPEnv(*orchestrator.Workflow, func(string) (string, bool)) {}
