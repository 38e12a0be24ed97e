package cogloop_test

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
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
	res, err := wf.Run(context.Background(), "cogloop", cogloop.WithObserver(func(e event.Event) {
		if e.Kind == event.LoopIteration {
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

// ExampleResult_Loops reads a run's outcome as Go values: its status, every
// agent failure (also one a loop survived) and each loop's passes and scores.
func ExampleResult_Loops() {
	wf, err := cogloop.Parse([]byte(`
orchestrator: {id: review, agents: [improve, final]}
agents:
  - id: improve
    type: loop
    max_loops: 4
    score_threshold: 0.85
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - {id: writer, type: scripted, prompt: "{{ get_input() }}", responses: [draft one, {error: "model overloaded"}, draft three]}
        - {id: critic, type: scripted, prompt: "{{ previous_outputs.writer.response }}", responses: ["SCORE: 0.42", "SCORE: 0.71", "SCORE: 0.90"]}
  - {id: final, type: scripted, prompt: "{{ previous_outputs.improve.response }}", responses: [done]}
`), "inline.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := wf.Run(context.Background(), "a slogan")
	fmt.Println(res.Status, err == nil)
	for _, e := range res.Errors {
		fmt.Printf("error at %s (%s): %s\n", e.Path, e.Agent, e.Message)
	}
	for _, l := range res.Loops() {
		fmt.Printf("%s: %d passes, stopped: %s, best pass %d (%.2f)\n", l.ID, l.LoopsCompleted, l.StopReason, l.BestIteration, l.BestScore)
		for _, it := range l.Iterations {
			fmt.Printf("  pass %d: %.2f\n", it.Number, it.Score)
		}
	}
	// Output:
	// ok true
	// error at improve › iteration 2 › writer (writer): scripted reply 2 of agent "writer" is an error: model overloaded
	// improve: 3 passes, stopped: threshold, best pass 3 (0.90)
	//   pass 1: 0.42
	//   pass 2: 0.71
	//   pass 3: 0.90
}
