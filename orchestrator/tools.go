package orchestrator

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/jsonschemax"
)

// maxToolArgs bounds the arguments of one tool call checked against its schema.
const maxToolArgs = 1 << 20

// toolDef is what a definition says about itself as a tool: description and
// parameters (read on every definition, used when an LLM agent names it in
// tools:).
type toolDef struct {
	description string
	params      map[string]any        // the JSON Schema of its arguments
	schema      jsonschemax.Validator // params compiled; nil when they did not compile (or a core build)
	used        bool                  // an LLM agent offers it
}

// readToolDef reads description and parameters of one definition; a
// parameters value that is not a valid JSON Schema is recorded at its position.
func readToolDef(typ string, c *load.Config) toolDef {
	t := toolDef{description: strings.TrimSpace(c.String("description", ""))}
	if c.Recording() {
		c.Decode("parameters", new(any))
		return t
	}
	n := c.Node("parameters")
	if n == nil {
		t.params = defaultParameters(typ, c)
	} else {
		var v any
		if !c.Decode("parameters", &v) {
			return t
		}
		m, ok := jsonValue(v).(map[string]any)
		if !ok {
			c.Errorf("parameters", "parameters must be a JSON Schema object ({type: object, properties: {...}}), not %s", load.KindName(n))
			return t
		}
		if ty, _ := m["type"].(string); ty != "object" {
			c.Errorf("parameters", "parameters must be an object schema (type: object): a model sends a tool's arguments as one JSON object")
			return t
		}
		t.params = m
	}
	s, err := compileSchema(t.params)
	if errors.Is(err, jsonschemax.ErrNotInThisBuild) {
		// A core build has no LLM agent types, so nothing can offer the
		// definition as a tool; parameters written out are refused.
		if n != nil {
			c.Errorf("parameters", "parameters (a tool's JSON Schema) cannot be checked: %v", err)
		}
		return t
	}
	if err != nil {
		pos := c.ValuePos("parameters")
		if at := nodeAt(n, jsonschemax.ErrorLocation(err)); at != nil {
			pos = c.PosOf(at)
		}
		c.Problems().Errorf(pos, "%s: parameters is not a valid JSON Schema: %s", c.What(), lastLine(err))
		return t
	}
	t.schema = s
	return t
}

// jsonValue turns what yaml decoded into JSON's shapes (maps with string keys).
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}

// schemaURL names a parameters schema inside the compiler (never fetched).
const schemaURL = "urn:cogloop:parameters"

func compileSchema(params map[string]any) (jsonschemax.Validator, error) {
	s, _, err := jsonschemax.CompileValidator(params, schemaURL)
	return s, err
}

// nodeAt follows a JSON location through a YAML node.
func nodeAt(n *yaml.Node, loc []string) *yaml.Node {
	for _, k := range loc {
		n = load.Resolve(n)
		if n == nil {
			return nil
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					next = n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// lastLine is the most specific line of a (multi-line) schema error: the
// first of the most indented.
func lastLine(err error) string {
	best, depth := "", -1
	for _, l := range strings.Split(strings.TrimSpace(err.Error()), "\n") {
		if d := len(l) - len(strings.TrimLeft(l, " ")); d > depth {
			best, depth = l, d
		}
	}
	return strings.TrimPrefix(strings.TrimSpace(best), "- ")
}

// check decodes a call's arguments and validates them against the schema.
func (t *toolDef) check(args string) (map[string]any, error) {
	if len(args) > maxToolArgs {
		return nil, fmt.Errorf("the arguments are %d bytes, more than the %d allowed", len(args), maxToolArgs)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	inst, err := jsonschemax.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %w; send one JSON object", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil, fmt.Errorf("the arguments must be one JSON object, not %s", strings.TrimSpace(args[:min(len(args), 40)]))
	}
	if t.schema != nil {
		if err := t.schema.Validate(inst); err != nil {
			return nil, fmt.Errorf("the arguments do not match the tool's parameters: %s", schemaError(err))
		}
	}
	d := json.NewDecoder(strings.NewReader(args))
	var out map[string]any
	if err := d.Decode(&out); err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %w", err)
	}
	return out, nil
}

// schemaError is a validation error on one line, its schema URLs shortened.
func schemaError(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	if len(lines) > 1 && strings.HasPrefix(lines[0], "jsonschema validation failed") {
		lines = lines[1:] // names the schema's URL: nothing for the model
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(strings.TrimSpace(l), "- ")
	}
	s := strings.Join(lines, "; ")
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}

// Tool returns the agent id as a tool for an LLM agent's tools: list. The id
// must name an agent of this workflow or an enclosing one with a description.
func (sb *scopeBuilder) Tool(id string, pos load.Pos) *agents.Tool {
	s := sb.s
	if s.b.recording {
		return nil
	}
	d := s.lookup(id)
	if d == nil {
		if s.b.mcp != nil {
			if t, ok := s.b.mcp.Tool(id, pos); ok {
				return t
			}
		}
		hint := ""
		if m := load.Closest(id, s.visibleIDs()); m != "" {
			hint = fmt.Sprintf("; did you mean %q?", m)
		}
		if server, _, ok := strings.Cut(id, "."); ok && s.b.mcp != nil {
			if m := load.Closest(server, s.b.mcp.Names()); m != "" {
				hint = fmt.Sprintf("; did you mean the mcp server %q?", m)
			}
		}
		s.b.probs.Errorf(pos, "tools names %q, which no agent defines%s (define an agent with that id and a description, or an mcp server under the orchestrator's mcp_servers)", id, hint)
		return nil
	}
	if d.tool.description == "" {
		s.b.probs.Errorf(pos, "agent %q (defined at %s) is named in tools but has no description: add description: (what the tool does, for the model)", id, d.idPos)
		return nil
	}
	if d.tool.params == nil {
		return nil // bad parameters, already reported
	}
	d.tool.used = true
	s.build(d)
	if cur := s.b.cur; cur != nil {
		cur.refs = append(cur.refs, id)
	}
	td := &d.tool
	return &agents.Tool{
		Spec:  agents.ToolSpec{Name: id, Description: td.description, Parameters: td.params},
		Type:  d.typ,
		Agent: d.agent,
		Check: td.check,
	}
}

// visibleIDs lists the ids s and its enclosing scopes define.
func (s *scope) visibleIDs() []string {
	var ids []string
	for sc := s; sc != nil; sc = sc.parent {
		for _, d := range sc.order {
			ids = append(ids, d.id)
		}
	}
	return ids
}
