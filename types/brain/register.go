package brain

import (
	"slices"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// DefaultTimeout bounds one operation (its store calls).
const DefaultTimeout = 30 * time.Second

// Options are the brain type's dependencies; the zero value uses time.Now.
type Options struct {
	// Now is the clock of skills and episodes (tests fix it).
	Now func() time.Time
}

// Register adds the brain agent type to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	r.MustRegister("brain", o.factory)
}

func (o Options) factory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Agent{ID: c.String("id", ""), Now: o.Now}
	a.Operation = strings.ToLower(strings.TrimSpace(c.String("operation", "learn")))
	if !slices.Contains(Operations, a.Operation) {
		c.Errorf("operation", "operation must be one of %s, not %q", strings.Join(Operations, ", "), a.Operation)
	}
	a.Prompt = b.Template(c, "prompt")
	a.Namespace = strings.TrimSpace(c.String("namespace", DefaultNamespace))
	if a.Namespace == "" {
		c.Errorf("namespace", "namespace must not be empty")
	}
	a.Timeout = c.Duration("timeout", DefaultTimeout)
	if pc := c.Map("params"); pc != nil {
		if !c.Has("timeout") {
			a.Timeout = pc.Duration("timeout", a.Timeout)
		}
		pc.DoneLenient("(OrKa's brain reads only its operation and prompt)")
	}
	c.Ignore("queue")
	return a, nil
}
