package loopnode_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
)

// randomBefore is a condition checked before each iteration.
func randomBefore(r *rand.Rand) string {
	switch r.Intn(3) {
	case 0:
		return fmt.Sprintf("{until: \"loop_number > %d\", check: before}", r.Intn(6))
	case 1:
		return fmt.Sprintf("{while: \"score < %.2f\", check: before}", r.Float64())
	default:
		return "{continue_while: {output: judge.approved, operator: \"==\", value: true}, check: before}"
	}
}

// spendingRandomModels answers adversarial replies that each use 25 tokens
// (within the worst case the agents' max_tokens reserve), some after a short
// wait that a timeout can cut.
type spendingRandomModels struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (m *spendingRandomModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		m.mu.Lock()
		text, wait := adversarial[m.r.Intn(len(adversarial))], time.Duration(m.r.Intn(3))*time.Millisecond
		m.mu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return agents.Reply{}, ctx.Err()
			}
		}
		return agents.Reply{Text: text, Usage: spend.Usage{PromptTokens: 5, CompletionTokens: 20}}, nil
	}), nil
}

// For random stop conditions (some checked before each iteration), random
// loop budgets and timeouts and adversarial replies, every run ends within
// max_loops with a stop_reason its configuration allows, never spends more
// than its budget, and reports as many iterations as it ran.
func TestLoopTerminationProperty(t *testing.T) {
	for seed := int64(1); seed <= 120; seed++ {
		r := rand.New(rand.NewSource(seed))
		maxLoops := 1 + r.Intn(6)
		conds := []string{randomCondition(r, 0)}
		if r.Intn(2) == 0 {
			conds = append(conds, randomBefore(r))
		}
		extra, budget, timed := "", 0, false
		if r.Intn(2) == 0 {
			budget = 60 + r.Intn(400)
			extra += fmt.Sprintf("    budget: {max_tokens: %d}\n", budget)
		}
		if r.Intn(3) == 0 {
			timed = true
			extra += fmt.Sprintf("    timeout: %.3f\n", float64(1+r.Intn(8))/1000)
		}
		src := fmt.Sprintf(`orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: %d
    stop_when: [%s]
%s    internal_workflow:
      orchestrator: {id: i, agents: [writer, judge]}
      agents:
        - {id: writer, type: openai-answer, model: m, max_tokens: 20, prompt: "{{ get_input() }}"}
        - {id: judge, type: openai-answer, model: m, max_tokens: 20, prompt: "judge"}
`, maxLoops, strings.Join(conds, ", "), extra)
		wf, err := cogloop.Parse([]byte(src), "random.yaml")
		require.NoError(t, err, "seed %d:\n%s", seed, src)

		iterations, checks := 0, 0
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := wf.Run(ctx, "topic", cogloop.WithModels(&spendingRandomModels{r: r}), cogloop.WithObserver(func(e event.Event) {
			switch e.Kind {
			case event.LoopIteration:
				if e.Data["completed"] == true {
					iterations++
				}
			case event.LoopCheck:
				checks++
			}
		}))
		cancel()
		require.NotErrorIs(t, err, context.DeadlineExceeded, "seed %d: the run must end on its own\n%s", seed, src)
		o, _ := res.Outputs.Get("l")
		requireStatus(t, res, err, o)
		loops := o.Fields["loops_completed"].(int)
		reason := o.Fields["stop_reason"].(string)
		require.LessOrEqual(t, loops, maxLoops, "seed %d", seed)
		allowed := map[string]bool{"max_loops": true, "threshold": true, "evaluator_done": true, "stable_output": true,
			"condition": true, "stagnation": true, "error": true, "budget": budget > 0, "timeout": timed}
		require.True(t, allowed[reason], "seed %d: stop_reason %q\n%s", seed, reason, src)
		if reason == "max_loops" {
			require.Equal(t, maxLoops, loops, "seed %d", seed)
		}
		if budget > 0 {
			require.LessOrEqual(t, res.Usage.Total(), budget, "seed %d: the loop's budget holds", seed)
		}
		if len(conds) > 1 && reason != "timeout" {
			// (a timeout of a few milliseconds may end the loop before the
			// first check)
			require.Positive(t, checks, "seed %d: check: before conditions are evaluated", seed)
		}
		if reason != "timeout" && reason != "error" {
			require.Equal(t, loops, iterations, "seed %d: one loop.iteration event per completed pass", seed)
		}
	}
}
