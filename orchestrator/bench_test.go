package orchestrator_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/cogloop/cogloop/types/llm"
)

// benchPrompt is a realistic 20-line prompt: variables, a loop over earlier
// outputs and a helper call.
const benchWorkflow = `
orchestrator: {id: bench, agents: [context, step]}
agents:
  - id: context
    type: scripted
    prompt: "Collect context for {{ get_input() }}"
    responses: {cycle: ["Background: tides are driven by the moon and the sun; two highs a day."]}
  - id: step
    type: openai-answer
    model: gpt-4o-mini
    prompt: |
      You are a careful technical writer working on an explanation.
      TOPIC: {{ get_input() }}
      CONTEXT FROM THE RESEARCHER:
      {{ previous_outputs.context.response }}
      {% if previous_outputs.context.confidence %}Researcher confidence: {{ previous_outputs.context.confidence }}{% endif %}
      EARLIER NOTES:
      {% for note in input_notes %}
      - {{ note.title }}: {{ note.text | truncate(80) }}
      {% endfor %}
      RULES:
      1. Be precise and cite the mechanism.
      2. Keep it under 200 words.
      3. Use plain language a student understands.
      4. End with one sentence that summarises the idea.
      5. Do not repeat the context verbatim.
      Write the explanation now for "{{ get_input() | upper }}".
      Current step: {{ get_loop_number() }}
      Reply with the text only.
      SCORE the result at the end as SCORE: X.XX
`

type cycleModel struct{}

func (cycleModel) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		return agents.Reply{Text: "Tides rise and fall twice a day. SCORE: 0.80", Usage: spend.Usage{PromptTokens: 200, CompletionTokens: 20}}, nil
	}), nil
}

// BenchmarkAgentStep measures the framework's cost of one agent step: render a
// 20-line prompt, call a zero-latency model through the LLM agent (retry
// wrapper, reply parsing), record the output and emit events. One op is one
// workflow run of two steps; the result is reported per step.
func BenchmarkAgentStep(b *testing.B) {
	reg := agents.NewRegistry()
	llm.Register(reg)
	wf, _, err := orchestrator.Parse([]byte(benchWorkflow), "bench.yaml", reg)
	if err != nil {
		b.Fatal(err)
	}
	notes := []any{
		map[string]any{"title": "moon", "text": "The moon's gravity pulls the ocean toward it, making a bulge on the near side of the earth."},
		map[string]any{"title": "sun", "text": "The sun adds a smaller pull; spring tides happen when the sun and moon line up."},
		map[string]any{"title": "shape", "text": "Coastlines and the depth of the sea floor change how high the tide gets in a place."},
	}
	var events int
	run := &agents.Run{ID: "bench", Models: cycleModel{}, Observe: func(event.Event) { events++ }}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := wf.Run(ctx, agents.Input{Value: "tides", Vars: map[string]any{"input_notes": notes}, Run: run})
		if err != nil || out.Response == nil {
			b.Fatal(err, out)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2), "ns/step")
}
