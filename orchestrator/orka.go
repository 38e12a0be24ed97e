package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
)

// orkaTopLevel are top-level keys of OrKa workflow files that OrKa's loader
// never reads (documentation, test data, an unused default model): they load
// with a warning.
var orkaTopLevel = []string{"meta", "name", "description", "llm", "test_inputs"}

// orkaAgentKeys are keys OrKa's agents take as keyword arguments and never
// read (OrKa's own bookkeeping): on an agent type that does not read them
// itself they load with a warning. The graph-scout hints capabilities and
// is_terminal are read on every definition (catalog.go).
var orkaAgentKeys = []string{"memory_preset", "config",
	"metadata", "parse_json", "params", "input", "embed_content", "group", "custom_weights",
	// in OrKa's docs, read by none of its code
	"confidence_threshold", "fallback_response", "rate_limit", "resources", "error_handling", "schema", "max_concurrency"}

// maxAgentTimeout bounds timeout: on agents the builder times.
const maxAgentTimeout = 24 * time.Hour

// withTimeout applies timeout: to an agent whose factory does not read it (fork,
// join, router, failover): each run of the agent, its children included, gets
// that long, and a run that takes longer fails with an error naming the
// timeout.
func withTimeout(a agents.Agent, d *def) agents.Agent {
	if d.cfg.Known("timeout") || !d.cfg.Has("timeout") {
		return a
	}
	t := d.cfg.Duration("timeout", 0)
	switch {
	case t > maxAgentTimeout:
		d.cfg.Errorf("timeout", "timeout must be at most 24h, not %s", t)
		return a
	case t <= 0 || a == nil:
		return a
	}
	return &timed{agent: a, id: d.id, timeout: t}
}

// timed is an agent with a deadline on each run.
type timed struct {
	agent   agents.Agent
	id      string
	timeout time.Duration
}

var _ agents.Agent = (*timed)(nil)

// errAgentTimeout is the cause of a timed agent's deadline.
var errAgentTimeout = errors.New("agent timeout")

// Run runs the agent with its deadline. When the deadline passes first, the
// error names the timeout and unwraps to context.DeadlineExceeded.
func (t *timed) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, t.timeout, errAgentTimeout)
	defer cancel()
	out, err := t.agent.Run(ctx, in)
	if err != nil && errors.Is(context.Cause(ctx), errAgentTimeout) {
		return out, fmt.Errorf("agent %q did not finish within its timeout: %s (raise timeout: to give it longer): %w",
			t.id, t.timeout, context.DeadlineExceeded)
	}
	return out, err
}

// Unwrap returns the timed agent.
func (t *timed) Unwrap() agents.Agent { return t.agent }
