package loopnode

import (
	"github.com/cogloop/cogloop/prompt"
)

// evalStrict evaluates a while or until expression so that a lookup of a
// missing field (previous_outputs.review.aproved) is an error, not a silent
// false. Only a lookup into the output of an agent that did not run or failed
// in the pass, or any lookup before the first pass, reads as undefined (the
// error policy judges failed agents).
func (c *condition) evalStrict(env *condEnv) (any, error) {
	if c.strict == nil || !env.evaluated || c.readsAbsentOutput(env) {
		return c.expr.Eval(env.data)
	}
	return c.strict.Eval(env.data)
}

// setDefines tells the tree's expressions which agent ids the internal
// workflow defines: an id it does not define is a typo, never absent.
func (c *condition) setDefines(defines func(string) bool) {
	if c == nil {
		return
	}
	c.defines = defines
	for _, ch := range c.children {
		ch.setDefines(defines)
	}
}

// readsAbsentOutput reports whether the expression reads the output of an
// agent that has no successful output in the pass.
func (c *condition) readsAbsentOutput(env *condEnv) bool {
	for _, nm := range c.expr.Names() {
		if nm.Kind != prompt.NameOutput {
			continue
		}
		o, ok := env.outputs.Get(nm.Name)
		if ok && o.Failed() || !ok && (c.defines == nil || c.defines(nm.Name)) {
			return true
		}
	}
	return false
}
