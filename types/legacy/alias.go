package legacy

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// memoryAlias builds memory-reader / memory-writer: the definition goes to r's
// memory type with config.operation set to op. An operation given in config
// that contradicts the type is an error.
func memoryAlias(r *agents.Registry, op string) agents.Factory {
	return func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		memory, ok := r.Lookup("memory")
		if !ok {
			return nil, fmt.Errorf("type memory-%s is an alias of memory, which this registry does not have", aliasName(op))
		}
		cfg, ok := withOperation(c, op)
		if !ok {
			return nil, nil
		}
		d := c.Derived(map[string]*yaml.Node{"config": cfg})
		a, err := memory(b, d)
		d.Accept("id", "type", "depends_on") // the builder's keys
		d.Done()
		return a, err
	}
}

func aliasName(op string) string {
	if op == "write" {
		return "writer"
	}
	return "reader"
}

// withOperation returns c's config mapping with operation: op added; ok is
// false (and a problem recorded) when config is not a mapping or names
// another operation.
func withOperation(c *load.Config, op string) (*yaml.Node, bool) {
	opNode := func() (*yaml.Node, *yaml.Node) {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "operation"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: op}
	}
	n := c.Node("config")
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		k, v := opNode()
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{k, v}}, true
	}
	if n.Kind != yaml.MappingNode {
		c.Errorf("config", "config must be a mapping, not %s", load.KindName(n))
		return nil, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "operation" {
			continue
		}
		v := load.Resolve(n.Content[i+1])
		if got := strings.ToLower(strings.TrimSpace(v.Value)); got != op {
			c.Problems().Errorf(c.PosOf(v), "%s: type memory-%s always has operation %s; config.operation %q contradicts it (use type memory for the other one)",
				c.What(), aliasName(op), op, v.Value)
			return nil, false
		}
		return n, true
	}
	cp := *n
	k, v := opNode()
	k.Line, k.Column = n.Line, n.Column
	cp.Content = append(append([]*yaml.Node(nil), n.Content...), k, v)
	return &cp, true
}
