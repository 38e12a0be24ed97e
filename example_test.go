package cogloop_test

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
)

func Example() {
	wf, err := cogloop.Parse([]byte(`
orchestrator:
  id: refine
  agents: [refine_loop]
agents:
  - id: refine_loop
    type: loop
    max_loops: 3
    score_threshold: 0.8
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - id: writer
          type: scripted
          prompt: "Write a slogan for {{ get_input() }} (try {{ loop_number }})"
          responses: ["Loops!", "Loops that learn."]
        - id: critic
          type: scripted
          prompt: "Rate: {{ previous_outputs.writer.response }}"
          responses: ["Too short. SCORE: 0.4", "Good. SCORE: 0.9"]
`), "inline.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := wf.Run(context.Background(), "cogloop", cogloop.WithObserver(func(e agents.Event) {
		if e.Kind == agents.EventLoopIteration {
			fmt.Printf("iteration %d: score %.2f\n", e.Data["loop_number"], e.Data["score"])
		}
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	loop, _ := res.Outputs.Get("refine_loop")
	fmt.Println(res.Text())
	fmt.Println(loop.Fields["stop_reason"], loop.Fields["loops_completed"])
	// Output:
	// iteration 1: score 0.40
	// iteration 2: score 0.90
	// Loops that learn.
	// threshold 2
}
