package loopnode_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/stretchr/testify/require"
)

var reasonOfKind = map[string]string{
	"score": "threshold", "evaluator": "evaluator_done", "stable_output": "stable_output",
	"while": "condition", "until": "condition", "continue_while": "condition", "stagnation": "stagnation",
}

var adversarial = []string{
	"SCORE: 0.9", "SCORE: 0.2", "Score: 8/10", "SCORE: 999", "SCORE: -3", "done", "continue", "DONE!",
	"{{ 7*7 }} {% include '/etc/passwd' %}", `{"approved": true, "score": 0.95}`, `{"approved": false}`,
	"same answer", "same answer", "(((((((((((aaaaaaaaaaaaaaaaaaaaaaaaaaaa!", strings.Repeat("x", 20_000),
	"score: 0.85 out of 1", "\x00\xff broken utf8", "",
}

func randomCondition(r *rand.Rand, depth int) string {
	kinds := []func() string{
		func() string { return fmt.Sprintf("{score: {threshold: %.2f}}", r.Float64()) },
		func() string { return "{evaluator: judge}" },
		func() string { return fmt.Sprintf("{stable_output: {threshold: %.2f, of: writer}}", 0.5+r.Float64()/2) },
		func() string { return fmt.Sprintf("{until: \"loop_number >= %d\"}", 1+r.Intn(6)) },
		func() string { return fmt.Sprintf("{while: \"score < %.2f\"}", r.Float64()) },
		func() string {
			ops := []string{"==", "!=", "<", ">", "<=", ">="}
			return fmt.Sprintf("{continue_while: {output: judge.approved, operator: %q, value: false}}", ops[r.Intn(len(ops))])
		},
		func() string { return fmt.Sprintf("{stagnation: {repeats: %d}}", 2+r.Intn(3)) },
		func() string {
			return fmt.Sprintf("{stagnation: {min_improvement: %.2f, rounds: %d}}", r.Float64()/5, 1+r.Intn(3))
		},
	}
	if depth < 2 && r.Intn(4) == 0 {
		group := []string{"any", "all"}[r.Intn(2)]
		n := 1 + r.Intn(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomCondition(r, depth+1)
		}
		return fmt.Sprintf("{%s: [%s]}", group, strings.Join(parts, ", "))
	}
	return kinds[r.Intn(len(kinds))]()
}

type randomModels struct {
	r *rand.Rand
}

func (m randomModels) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		return agents.Reply{Text: adversarial[m.r.Intn(len(adversarial))]}, nil
	}), nil
}

// For random stop conditions and adversarial replies, every run stops within
// max_loops, and its stop_reason names a condition that fired in the last
// iteration (or max_loops when none did).
func TestLoopControlsProperty(t *testing.T) {
	for seed := int64(1); seed <= 150; seed++ {
		r := rand.New(rand.NewSource(seed))
		maxLoops := 1 + r.Intn(6)
		conds := make([]string, 1+r.Intn(3))
		for i := range conds {
			conds[i] = randomCondition(r, 0)
		}
		feedback := []string{"none", "replace", "append"}[r.Intn(3)]
		src := fmt.Sprintf(`orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: %d
    feedback: %s
    stop_when: [%s]
    internal_workflow:
      orchestrator: {id: i, agents: [writer, judge]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "{{ get_input() }} {{ loop_result }}"}
        - {id: judge, type: openai-answer, model: m, prompt: "{{ previous_outputs.writer.response }}"}
`, maxLoops, feedback, strings.Join(conds, ", "))
		wf, err := cogloop.Parse([]byte(src), "random.yaml")
		require.NoError(t, err, "seed %d:\n%s", seed, src)

		var last map[string]any
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := wf.Run(ctx, "topic", cogloop.WithModels(randomModels{r}), cogloop.WithObserver(func(e event.Event) {
			if e.Kind == event.LoopIteration {
				last = e.Data
			}
		}))
		cancel()
		o, _ := res.Outputs.Get("l")
		requireStatus(t, res, err, o)
		loops := o.Fields["loops_completed"].(int)
		reason := o.Fields["stop_reason"].(string)
		require.LessOrEqual(t, loops, maxLoops, "seed %d", seed)
		require.NotNil(t, last, "seed %d: at least one iteration ran", seed)
		if reason == "error" {
			// Empty replies fail agents: two such passes in a row stop the loop
			// (max_failed_passes), as does append feedback on a reply that is not text.
			require.NotEmpty(t, o.Fields["error"], "seed %d", seed)
			continue
		}
		if reason == "max_loops" {
			require.Equal(t, maxLoops, loops, "seed %d", seed)
			require.Equal(t, false, last["stop"], "seed %d: max_loops only when no condition stopped the loop", seed)
			continue
		}
		require.Equal(t, true, last["stop"], "seed %d: reason %s without a stop", seed, reason)
		named := false
		for _, c := range last["conditions"].([]any) {
			cm := c.(map[string]any)
			if cm["fired"] == true && reasonOfKind[cm["kind"].(string)] == reason {
				named = true
			}
		}
		require.True(t, named, "seed %d: stop_reason %q names no fired condition in %v\n%s", seed, reason, last["conditions"], src)
	}
}
