package loopnode

import (
	"regexp"
	"strings"

	"github.com/cogloop/cogloop/agents"
)

// outputFieldRef finds previous_outputs.<agent>.<field> (and the bracket
// forms) in a condition's source; the source is bounded by the loader.
var outputFieldRef = regexp.MustCompile(`previous_outputs\s*(?:\.\s*([A-Za-z_]\w{0,127})|\[\s*['"]([A-Za-z_]\w{0,127})['"]\s*\])\s*(?:\.\s*([A-Za-z_]\w{0,127})|\[\s*['"]([A-Za-z_]\w{0,127})['"]\s*\])`)

// FieldRefs lists the output fields the loop's stop conditions read
// (while/until expressions, continue_while's output), so the load can warn
// about a field no agent's declared output can have.
func (n *Node) FieldRefs() []agents.FieldRef {
	var out []agents.FieldRef
	var walk func(c *condition)
	walk = func(c *condition) {
		if c == nil {
			return
		}
		for _, ch := range c.children {
			walk(ch)
		}
		switch {
		case c.expr != nil:
			for _, m := range outputFieldRef.FindAllStringSubmatch(c.expr.Source(), -1) {
				out = append(out, agents.FieldRef{Agent: m[1] + m[2], Field: m[3] + m[4], Pos: c.exprPos,
					What: "loop " + quote(n.id) + " " + c.kind})
			}
		case c.output != "":
			if id, field, ok := strings.Cut(c.output, "."); ok {
				field, _, _ = strings.Cut(field, ".")
				out = append(out, agents.FieldRef{Agent: id, Field: field, Pos: c.refPos,
					What: "loop " + quote(n.id) + " " + c.kind})
			}
		}
	}
	walk(n.stop)
	return out
}

func quote(s string) string { return `"` + s + `"` }
