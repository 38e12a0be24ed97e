package legacy

import (
	"context"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
)

// DefaultFailDelay is how long a failing agent waits before it fails (OrKa's
// 5 seconds: it simulates a slow node).
const DefaultFailDelay = 5 * time.Second

// Failing is OrKa's failing node: it waits Delay, then fails ("failed
// intentionally after <delay>"; the error's path names the agent). It exists
// to exercise failover.
type Failing struct {
	ID    string
	Delay time.Duration
	sleep func(ctx context.Context, d time.Duration) error
}

var _ agents.Agent = (*Failing)(nil)

func (o Options) failingFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	f := &Failing{ID: c.String("id", ""), sleep: o.Sleep}
	f.Delay = c.Duration("delay", DefaultFailDelay)
	// OrKa's failing node takes a prompt and ignores it.
	c.Accept("prompt")
	c.Ignore("queue")
	return f, nil
}

// Run waits and fails; a context that ends first ends the wait with its error.
func (f *Failing) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if f.Delay > 0 {
		sleep := f.sleep
		if sleep == nil {
			sleep = retry.Sleep
		}
		if err := sleep(ctx, f.Delay); err != nil {
			return agents.Output{}, err
		}
	}
	return agents.Output{}, fmt.Errorf("failed intentionally after %s (type failing always fails)", f.Delay)
}
