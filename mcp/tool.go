package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/internal/jsonschemax"
	"path"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
)

// Set is the MCP servers of one workflow file and the server tools its LLM
// agents name; Start connects them for a run.
type Set struct {
	servers []*Server
	refs    []ref
}

type ref struct {
	server  *Server
	pattern string // a tool name, or * (path.Match patterns)
	pos     load.Pos
}

// NewSet is the set of servers (empty when there are none).
func NewSet(servers []*Server) *Set {
	return &Set{servers: servers}
}

// Add adds the servers another file declares (a workflow_ref file's
// mcp_servers); a name declared already is an error naming both places.
func (s *Set) Add(servers []*Server) error {
	var errs []error
	for _, srv := range servers {
		if old := s.Server(srv.Name); old != nil {
			errs = append(errs, fmt.Errorf("mcp server %q is declared twice, at %s and at %s: give one of them another name", srv.Name, old.Pos, srv.Pos))
			continue
		}
		s.servers = append(s.servers, srv)
	}
	return errors.Join(errs...)
}

// Servers lists the servers in file order.
func (s *Set) Servers() []*Server {
	if s == nil {
		return nil
	}
	return s.servers
}

// Server returns the server named name, or nil.
func (s *Set) Server(name string) *Server {
	for _, srv := range s.Servers() {
		if srv.Name == name {
			return srv
		}
	}
	return nil
}

// Names lists the server names.
func (s *Set) Names() []string {
	var out []string
	for _, srv := range s.Servers() {
		out = append(out, srv.Name)
	}
	return out
}

// Tool returns the placeholder for name (server.tool or server.*) in a
// tools: list, resolved at call time from the run's sessions; ok is false
// when name's prefix is no server of s.
func (s *Set) Tool(name string, pos load.Pos) (*agents.Tool, bool) {
	server, pattern, found := strings.Cut(name, ".")
	srv := s.Server(server)
	if !found || srv == nil {
		return nil, false
	}
	if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
		return nil, false
	}
	s.refs = append(s.refs, ref{srv, pattern, pos})
	return &agents.Tool{
		Spec: agents.ToolSpec{Name: name},
		Type: "mcp",
		Expand: func(ctx context.Context) ([]*agents.Tool, error) {
			return expand(ctx, srv, pattern)
		},
	}, true
}

// Start connects every server for one run (those standIns names are
// answered by their scripted replies instead) and checks that the tools the
// agents name exist (a missing one is an error with did-you-mean over the
// server's tools). The context returned carries the sessions to the agents;
// the caller closes the sessions when the run ends.
func (s *Set) Start(ctx context.Context, standIns StandIns) (context.Context, *Sessions, error) {
	var errs []error
	for name := range standIns {
		if s.Server(name) == nil {
			hint := ""
			if m := load.Closest(name, s.Names()); m != "" {
				hint = fmt.Sprintf("; did you mean %q?", m)
			}
			errs = append(errs, fmt.Errorf("the script stands in for mcp server %q, which the workflow does not declare%s (its mcp_servers: %s)", name, hint, strings.Join(s.Names(), ", ")))
		}
	}
	if err := errors.Join(errs...); err != nil || s == nil {
		return ctx, nil, err
	}
	sess, err := connect(ctx, s.servers, standIns)
	if err != nil {
		return ctx, nil, err
	}
	for _, r := range s.refs {
		c := sess.conn(r.server.Name)
		if len(match(c.tools, r.pattern)) > 0 {
			continue
		}
		names := make([]string, len(c.tools))
		for i, t := range c.tools {
			names[i] = t.Name
		}
		hint := ""
		if m := load.Closest(r.pattern, names); m != "" {
			hint = fmt.Sprintf("; did you mean %s.%s?", r.server.Name, m)
		}
		errs = append(errs, fmt.Errorf("%s: tools names %s.%s, which %s does not offer%s (its tools: %s)",
			r.pos, r.server.Name, r.pattern, r.server.What(), hint, strings.Join(names, ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		_ = sess.Close()
		return ctx, nil, err
	}
	return context.WithValue(ctx, sessionsKey{}, sess), sess, nil
}

type sessionsKey struct{}

// With returns ctx carrying sess (for tests and callers that connect themselves).
func With(ctx context.Context, sess *Sessions) context.Context {
	return context.WithValue(ctx, sessionsKey{}, sess)
}

func match(tools []*sdkTool, pattern string) []*sdkTool {
	var out []*sdkTool
	for _, t := range tools {
		if ok, _ := path.Match(pattern, t.Name); ok {
			out = append(out, t)
		}
	}
	return out
}

// expand is the tools of srv matching pattern in the run of ctx.
func expand(ctx context.Context, srv *Server, pattern string) ([]*agents.Tool, error) {
	sess, _ := ctx.Value(sessionsKey{}).(*Sessions)
	var c *conn
	if sess != nil {
		c = sess.conn(srv.Name)
	}
	if c == nil {
		return nil, fault.Fatal(fmt.Errorf("%s is not connected", srv.What()),
			"run the workflow with Workflow.Run (it starts the mcp_servers), or connect them with Set.Start")
	}
	var out []*agents.Tool
	for _, t := range match(c.tools, pattern) {
		out = append(out, c.tool(t))
	}
	return out, nil
}

// tool is t of c as a tool for a model: its input schema from the server,
// checked before the call.
func (c *conn) tool(t *sdkTool) *agents.Tool {
	params, _ := jsonMap(t.InputSchema)
	if params == nil {
		params = map[string]any{"type": "object"}
	}
	if _, ok := params["type"]; !ok {
		params["type"] = "object"
	}
	schema, schemaErr := compile(params)
	name := c.srv.Name + "." + t.Name
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &agents.Tool{
		Spec: agents.ToolSpec{Name: name, Description: desc, Parameters: params},
		Type: "mcp",
		Agent: agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			args, _ := in.Vars["args"].(map[string]any)
			return c.call(ctx, t.Name, args)
		}),
		Check: func(args string) (map[string]any, error) {
			return check(schema, schemaErr, args)
		},
	}
}

func jsonMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(b, &m)
	return m, err
}

const schemaURL = "urn:cogloop:mcp-tool"

func compile(params map[string]any) (*jsonschema.Schema, error) {
	sch, _, err := jsonschemax.Compile(params, schemaURL)
	return sch, err
}

// maxArgs bounds the arguments of one call.
const maxArgs = 1 << 20

// check decodes a call's arguments and validates them against the tool's
// input schema (a schema the validator cannot compile checks only that the
// arguments are one JSON object; the server checks them again).
func check(schema *jsonschema.Schema, schemaErr error, args string) (map[string]any, error) {
	if len(args) > maxArgs {
		return nil, fmt.Errorf("the arguments are %d bytes, more than the %d allowed", len(args), maxArgs)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(args), &out); err != nil || out == nil {
		return nil, errors.New("the arguments must be one JSON object")
	}
	if schemaErr == nil {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
		if err == nil {
			err = schema.Validate(inst)
		}
		if err != nil {
			msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
			return nil, fmt.Errorf("the arguments do not match the tool's input schema: %s", fault.Truncate(msg, 600))
		}
	}
	return out, nil
}

// ServerTools is what a server offers, as `cogloop mcp tools` lists it.
type ServerTools struct {
	Server string     `json:"server"`
	What   string     `json:"what"`
	Tools  []ToolInfo `json:"tools"`
}

// ToolInfo is one tool of a server: its name as tools: writes it
// (server.tool), description and input schema.
type ToolInfo struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

// List starts or contacts every server, checks the tools the agents name
// (as a run's start does) and returns each server's tools with their input
// schemas, the servers closed again.
func (s *Set) List(ctx context.Context) ([]ServerTools, error) {
	if s == nil {
		return nil, nil
	}
	_, sess, err := s.Start(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sess.Close() }()
	out := make([]ServerTools, 0, len(s.servers))
	for _, srv := range s.servers {
		c := sess.conn(srv.Name)
		st := ServerTools{Server: srv.Name, What: srv.What()}
		for _, t := range c.tools {
			spec := c.tool(t).Spec
			st.Tools = append(st.Tools, ToolInfo{spec.Name, spec.Description, spec.Parameters})
		}
		out = append(out, st)
	}
	return out, nil
}
