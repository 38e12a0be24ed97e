package flow

import (
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"go.yaml.in/yaml/v3"
)

// Type names under which [Register] adds the agents.
const (
	TypeFork     = "fork"
	TypeJoin     = "join"
	TypeRouter   = "router"
	TypeFailover = "failover"
)

// Register adds fork, join, router and failover to r.
func Register(r *agents.Registry) {
	r.MustRegister(TypeFork, NewFork)
	r.MustRegister(TypeJoin, NewJoin)
	r.MustRegister(TypeRouter, NewRouter)
	r.MustRegister(TypeFailover, NewFailover)
}

// orkaIgnored are keys OrKa's nodes accept that do nothing here.
var orkaIgnored = []string{"queue", "prompt"}

// ref resolves id (named by key of c, written at pos) to a step of the same
// workflow. An undefined id is recorded as a problem naming c's agent; ok is
// false then. The step's agent is nil when its definition failed to build.
func ref(b *agents.Builder, c *load.Config, key, id string, pos load.Pos) (agents.Step, bool) {
	st := agents.Step{ID: id}
	typ, found := b.TypeOf(id)
	if !found {
		c.Problems().Errorf(pos, "%s: %s names %q, which no agent of this workflow defines", c.What(), key, id)
		return st, false
	}
	st.Type = typ
	a, err := b.Ref(id, pos)
	if err != nil {
		c.Problems().Errorf(pos, "%s: %s %q: %v", c.What(), key, id, err)
		return st, false
	}
	return agents.NewStep(id, typ, a), true
}

// idList reads n as agent ids: a list of text, or one text for a one-item list.
// Problems are recorded on c under key; positions are the items'.
func idList(c *load.Config, key string, n *yaml.Node) ([]string, []load.Pos) {
	n = load.Resolve(n)
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{strings.TrimSpace(n.Value)}, []load.Pos{c.PosOf(n)}
	}
	if n.Kind != yaml.SequenceNode {
		c.Problems().Errorf(c.PosOf(n), "%s: %s must be an agent id or a list of agent ids, not %s", c.What(), key, load.KindName(n))
		return nil, nil
	}
	ids := make([]string, 0, len(n.Content))
	pos := make([]load.Pos, 0, len(n.Content))
	for _, it := range n.Content {
		it = load.Resolve(it)
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" || strings.TrimSpace(it.Value) == "" {
			c.Problems().Errorf(c.PosOf(it), "%s: %s items must be agent ids, not %s", c.What(), key, load.KindName(it))
			continue
		}
		ids = append(ids, strings.TrimSpace(it.Value))
		pos = append(pos, c.PosOf(it))
	}
	return ids, pos
}

// mappingValue returns the scalar value of key in mapping n, or "".
func mappingValue(n *yaml.Node, key string) string {
	n = load.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			if v := load.Resolve(n.Content[i+1]); v != nil && v.Kind == yaml.ScalarNode {
				return strings.TrimSpace(v.Value)
			}
		}
	}
	return ""
}
