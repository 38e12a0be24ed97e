package flow_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/cogloop/cogloop/types/llm"
	"github.com/stretchr/testify/require"
)

// world is the shared state of one test's agents: named gates a branch can wait
// for or open, a concurrency tracker and a count of agents that returned.
type world struct {
	mu    sync.Mutex
	gates map[string]chan struct{}

	inflight, maxInflight atomic.Int64
	starts                []string
	exited                atomic.Int64
}

func (w *world) gate(name string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gates == nil {
		w.gates = map[string]chan struct{}{}
	}
	ch, ok := w.gates[name]
	if !ok {
		ch = make(chan struct{})
		w.gates[name] = ch
	}
	return ch
}

// registry has the test types of agenttest, the LLM types (scripted), the loop,
// the flow types and three types bound to w:
//
//   - gate: waits for the gate named by wait (if any; a test opens it), then
//     answers response;
//   - track: counts how many track agents run at once (hold: how long it stays
//     in flight) and records its start;
//   - wait: blocks until its context is done, then counts itself in w.exited.
func (w *world) registry() *agents.Registry {
	r := agents.NewRegistry()
	agenttest.Register(r)
	llm.Register(r)
	loopnode.Register(r)
	flow.Register(r)
	r.MustRegister("gate", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		wait, resp := c.String("wait", ""), c.String("response", "")
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			if wait != "" {
				select {
				case <-w.gate(wait):
				case <-ctx.Done():
					return agents.Output{}, ctx.Err()
				}
			}
			return agents.Output{Response: resp}, nil
		}), nil
	})
	r.MustRegister("track", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		id := c.String("id", "")
		hold := c.Duration("hold", 5*time.Millisecond)
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			n := w.inflight.Add(1)
			defer w.inflight.Add(-1)
			for {
				m := w.maxInflight.Load()
				if n <= m || w.maxInflight.CompareAndSwap(m, n) {
					break
				}
			}
			w.mu.Lock()
			w.starts = append(w.starts, id)
			w.mu.Unlock()
			if err := retry.Sleep(ctx, hold); err != nil {
				return agents.Output{}, err
			}
			return agents.Output{Response: id + " done"}, nil
		}), nil
	})
	r.MustRegister("wait", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		return agents.Func(func(ctx context.Context, in agents.Input) (agents.Output, error) {
			defer w.exited.Add(1)
			<-ctx.Done()
			return agents.Output{}, ctx.Err()
		}), nil
	})
	return r
}

func (w *world) parse(t *testing.T, src string) (*orchestrator.Workflow, []load.Problem) {
	t.Helper()
	wf, warns, err := orchestrator.Parse([]byte(src), "wf.yaml", w.registry())
	require.NoError(t, err)
	return wf, warns
}

// run runs wf on input with a recorder; a test that deadlocks fails after 10 s
// instead of hanging.
func run(t *testing.T, wf agents.Agent, input any) (agents.Output, *agenttest.Recorder, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := &agenttest.Recorder{}
	out, err := wf.Run(ctx, agents.Input{Value: input, Run: &agents.Run{ID: "test", Observe: rec.Observe}})
	return out, rec, err
}

func get(t *testing.T, outs *agents.Outputs, id string) agents.Output {
	t.Helper()
	o, ok := outs.Get(id)
	require.True(t, ok, "no output for %q in %v", id, outs.IDs())
	return o
}
