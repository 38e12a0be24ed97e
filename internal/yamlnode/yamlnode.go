package yamlnode

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Resolve follows alias nodes and unwraps document nodes (at most 64 steps,
// so an alias cycle ends).
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

// KindName names a node's kind for messages: "a mapping", "a list", "null",
// a scalar's quoted value, "nothing" for nil.
func KindName(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return "null"
	case n.Kind == yaml.ScalarNode:
		return strconv.Quote(n.Value)
	}
	return "an alias"
}
