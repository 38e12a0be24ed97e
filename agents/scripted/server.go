package scripted

import (
	"fmt"
	"maps"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// ServerPrefix starts a script key that stands in for a whole MCP server:
// mcp:NAME: {TOOL: [replies...], ...} answers each call of the server's tool
// TOOL with its next reply (a text, or {error: "..."} for a tool error), and
// the server is not started.
const ServerPrefix = "mcp:"

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func (s *Script) readServer(c *load.Config, key, server string, probs *load.Problems) {
	n := load.Resolve(c.Node(key))
	what := fmt.Sprintf("script: mcp server %q", server)
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		probs.Errorf(c.ValuePos(key), "%s must map each tool it stands in for to its replies: %s: {read_text_file: [\"…\"]}", what, key)
		return
	}
	tools := map[string]*Model{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		tool := n.Content[i].Value
		if !toolName.MatchString(tool) {
			probs.Errorf(c.PosOf(n.Content[i]), "%s: %q is not a tool name (letters, digits, _, - and .)", what, tool)
			continue
		}
		replies, cycle := ReadReplies(s.file, n.Content[i+1], fmt.Sprintf("%s: tool %q", what, tool), probs)
		tools[tool] = New(key+"."+tool, s.file, replies, cycle)
	}
	if s.servers == nil {
		s.servers = map[string]map[string]*Model{}
	}
	s.servers[server] = tools
}

// Servers lists the MCP servers the script stands in for, sorted.
func (s *Script) Servers() []string { return slices.Sorted(maps.Keys(s.servers)) }

// ServerStandIns are the scripted tools of each server the script stands in
// for: server → tool → a model answering one reply per call.
func (s *Script) ServerStandIns() map[string]map[string]agents.Model {
	out := make(map[string]map[string]agents.Model, len(s.servers))
	for name, tools := range s.servers {
		out[name] = make(map[string]agents.Model, len(tools))
		for tool, m := range tools {
			out[name][tool] = m
		}
	}
	return out
}
