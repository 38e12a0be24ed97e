package checks

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Register adds invariant_validator to r.
func Register(r *agents.Registry) {
	r.MustRegister("invariant_validator", factory)
}

// Config is an invariant validator's configuration (OrKa's keys).
type Config struct {
	// MaxDepth limits the number of agents run; 0 means no limit.
	MaxDepth int
	// AllowReentrant are agent ids that may appear more than once.
	AllowReentrant []string
	// StrictToolErrors reports tool warnings as violations too.
	StrictToolErrors bool
	// Data is a fixed execution record (execution_data); nil means the
	// prompt's marker or the run's own record.
	Data map[string]any
}

func factory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	v := &Validator{ID: c.String("id", ""), Prompt: b.Template(c, "prompt")}
	// OrKa reads its keys from params: when the definition has one, else from
	// the definition itself.
	src := c
	if p := c.Map("params"); p != nil {
		src = p
		defer p.Done()
		for _, k := range []string{"max_depth", "allow_reentrant_nodes", "strict_tool_errors", "execution_data"} {
			if c.Has(k) {
				c.Warnf(k, "%s is ignored when params is given (OrKa reads params); move it under params", k)
			}
		}
	}
	v.Config.MaxDepth = src.Int("max_depth", 0, 0, 1_000_000)
	v.Config.AllowReentrant = src.Strings("allow_reentrant_nodes")
	v.Config.StrictToolErrors = src.Bool("strict_tool_errors", false)
	if n := src.Node("execution_data"); n != nil && n.Tag != "!!null" {
		var raw any
		if src.Decode("execution_data", &raw) {
			data, err := record(raw)
			if err != nil {
				src.Errorf("execution_data", "execution_data: %v", err)
			}
			v.Config.Data = data
		}
	}
	c.Ignore("queue")
	return v, nil
}
