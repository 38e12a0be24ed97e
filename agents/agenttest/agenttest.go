package agenttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
)

// Registry returns a registry with the test types:
//
//   - echo: renders its prompt and answers with the rendered text;
//   - const: answers with its response key (any YAML value);
//   - fail: fails with its message key; with a fix key the failure is fatal
//     ([fault.Fatal]) with that fix;
//   - panic: panics with its message key.
func Registry() *agents.Registry {
	r := agents.NewRegistry()
	Register(r)
	return r
}

// Register adds the test types to r.
func Register(r *agents.Registry) {
	r.MustRegister("echo", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		t := b.Template(c, "prompt")
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			p, err := in.Render(t)
			if err != nil {
				return agents.Output{}, err
			}
			return agents.Output{Response: p, Prompt: p, Usage: spend.Usage{PromptTokens: len(p), CompletionTokens: 1}}, nil
		}), nil
	})
	r.MustRegister("const", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		var v any
		c.Decode("response", &v)
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			return agents.Output{Response: v}, nil
		}), nil
	})
	r.MustRegister("fail", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		msg := c.String("message", "failed on purpose")
		fix := c.String("fix", "")
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			if fix != "" {
				return agents.Output{}, fault.Fatal(errors.New(msg), fix)
			}
			return agents.Output{}, errors.New(msg)
		}), nil
	})
	r.MustRegister("panic", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		msg := c.String("message", "panicked on purpose")
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			panic(msg)
		}), nil
	})
	r.MustRegister("block", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			<-ctx.Done()
			return agents.Output{}, ctx.Err()
		}), nil
	})
}

// Recorder collects events; safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []event.Event
}

// Observe records e.
func (r *Recorder) Observe(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of the recorded events.
func (r *Recorder) Events() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// Kinds returns the kinds of the recorded events, in order.
func (r *Recorder) Kinds() []string {
	var out []string
	for _, e := range r.Events() {
		out = append(out, e.Kind)
	}
	return out
}

// Sleeper stands in for a retry policy's sleep: it records the waits asked for
// and returns at once (with ctx's error, if ctx is done). Safe for concurrent use.
type Sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep records d.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the recorded waits in order.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// Output is the output of agent id in outs; an agent that did not run fails
// the test, naming those that did.
func Output(t testing.TB, outs *agents.Outputs, id string) agents.Output {
	t.Helper()
	o, ok := outs.Get(id)
	if !ok {
		t.Fatalf("no output of %q (have %v)", id, outs.IDs())
	}
	return o
}
