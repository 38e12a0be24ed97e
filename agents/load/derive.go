package load

import (
	"sort"

	"go.yaml.in/yaml/v3"
)

// Derived returns a Config over a copy of c's mapping with the keys of set
// replaced or added (a nil node removes the key), for a type that hands its
// definition, adjusted, to another type's factory (an alias that fixes a key,
// an agent built around another). The copy keeps every key's position and
// shares the value nodes, so problems found through it point into the file.
// Every key of c becomes known on c: the derived Config reports unknown keys
// itself when its Done is called.
func (c *Config) Derived(set map[string]*yaml.Node) *Config {
	if c.spec != nil { // recording: the other factory's keys are c's
		return newRecording(c.what, c.probs, c.spec)
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if n := Resolve(c.node); n != nil {
		m.Line, m.Column = n.Line, n.Column
	}
	seen := map[string]bool{}
	for _, k := range c.order {
		c.known[k] = true
		v := c.vals[k]
		if nv, ok := set[k]; ok {
			seen[k] = true
			if nv == nil {
				continue
			}
			v = nv
		}
		m.Content = append(m.Content, c.keys[k], v)
	}
	added := make([]string, 0, len(set))
	for k, v := range set {
		if !seen[k] && v != nil {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	for _, k := range added {
		v := set[k]
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: m.Line, Column: m.Column}
		m.Content = append(m.Content, key, v)
	}
	return NewConfig(c.file, m, c.what, c.probs)
}
