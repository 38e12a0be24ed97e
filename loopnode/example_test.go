package loopnode_test

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/loopnode"
)

// A loop that works through a queue, built in Go with the settings YAML
// writes as vars:, update:, stop_when: and outputs:.
func ExampleNewLoop_stopWhen() {
	worker := agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
		queue := in.Vars["queue"].([]any)
		return agents.Output{Response: fmt.Sprintf("done %v", queue[0])}, nil
	})
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID:        "chores",
		Body:      agents.Sequence{Steps: []agents.Step{agents.NewStep("worker", "go", worker)}},
		MaxLoops:  10,
		Threshold: 0.9,
		Vars:      []loopnode.Var{{Name: "queue", Value: []any{"dishes", "laundry"}}, {Name: "log", Value: []any{}}},
		Update: []loopnode.Var{
			{Name: "log", Value: "{{ log + [previous_outputs.worker.response] }}"},
			{Name: "queue", Value: "{{ queue[1:] }}"},
		},
		StopWhen: []loopnode.Condition{{Kind: "until", Expr: "queue | length == 0"}},
		Outputs:  []string{"log"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	wf, err := cogloop.New("house", loop)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := wf.Run(context.Background(), "chores")
	if err != nil {
		fmt.Println(err)
		return
	}
	l := res.Loops()[0]
	out, _ := res.Outputs.Get("chores")
	fmt.Println(l.StopReason, l.LoopsCompleted, out.Fields["outputs"])
	// Output: condition 2 map[log:[done dishes done laundry]]
}
