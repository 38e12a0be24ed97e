package loopnode_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

const benchLoop = `
orchestrator: {id: bench, agents: [loop]}
agents:
  - id: loop
    type: loop
    max_loops: 10
    score_threshold: 0.99
    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["(?:provides?|identifies?|shows?|reveals?)\\s+(.+?)(?:\\n|$)", "(?:key|main|important)\\s+(?:insight|finding|point)s?[:\\s]+(.+?)(?:\\n|$)"]
        improvements: ["(?:lacks?|needs?|requires?|missing|should)\\s+(.+?)(?:\\n|$)", "(?:could|would)\\s+(?:improve|benefit|enhance)\\s+(.+?)(?:\\n|$)"]
        mistakes: ["(?:overlooked|missed|not adequately|fails? to)\\s+(.+?)(?:\\n|$)", "(?:weakness|gap|issue|problem)s?[:\\s]+(.+?)(?:\\n|$)"]
    internal_workflow:
      orchestrator: {id: inner, agents: [improver, critic, scorer]}
      agents:
        - id: improver
          type: openai-answer
          model: m
          prompt: |
            Improve the answer to: {{ get_input() }}
            {% for p in get_past_loops() %}- pass {{ p.loop_number }} ({{ p.score }}): {{ p.improvements }}
            {% endfor %}
        - id: critic
          type: openai-answer
          model: m
          prompt: "Critique: {{ previous_outputs.improver.response }}"
        - id: scorer
          type: openai-answer
          model: m
          prompt: "Score: {{ previous_outputs.improver.response }} given {{ previous_outputs.critic.response }}"
`

type benchModels map[string]string

func (m benchModels) ModelFor(id string) (agents.Model, error) {
	text := m[id]
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		return agents.Reply{Text: text, Usage: spend.Usage{PromptTokens: 100, CompletionTokens: 50}}, nil
	}), nil
}

// BenchmarkLoopIteration measures the framework's CPU per loop iteration of a
// 3-agent loop at zero model latency: three prompt renders and model calls,
// score extraction, cognitive extraction with 6 patterns, default metadata.
func BenchmarkLoopIteration(b *testing.B) {
	wf, err := cogloop.Parse([]byte(benchLoop), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	models := benchModels{
		"improver": "Recursion is a function that calls itself on a smaller input until it reaches a base case. " +
			"It shows how a big problem splits into small ones.\nThe key insight: every call must move toward the base case.",
		"critic": "The answer identifies the base case clearly.\nIt lacks a concrete example with numbers.\n" +
			"It overlooked the cost of deep call stacks.\nWeakness: no mention of tail calls.",
		"scorer": "Decent but incomplete. SCORE: 0.62",
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := wf.Run(ctx, "Explain recursion", cogloop.WithModels(models))
		if err != nil {
			b.Fatal(err)
		}
		if o, _ := res.Outputs.Get("loop"); o.Fields["loops_completed"] != 10 {
			b.Fatal("loop did not run 10 iterations")
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/iteration")
}
