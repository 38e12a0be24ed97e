// Command coreprog is TestCoreBuild's program, built with -tags
// cogloop_core: a loop of two Go agents runs, and what the core build leaves
// out is refused by name.
package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/loopnode"
)

func main() {
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID: "l",
		Body: agents.Sequence{Steps: []agents.Step{
			agents.NewStep("a", "go", agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
				return agents.Output{Response: fmt.Sprintf("pass %d SCORE: 0.%d", in.Loop.Number, 3*in.Loop.Number)}, nil
			})),
		}},
		MaxLoops:  5,
		Threshold: 0.9,
	})
	if err != nil {
		panic(err)
	}
	wf, err := cogloop.New("core", loop)
	if err != nil {
		panic(err)
	}
	res, err := wf.Run(context.Background(), "x")
	if err != nil {
		panic(err)
	}
	l := res.Loops()[0]
	fmt.Printf("go loop: %s after %d passes: %v\n", l.StopReason, l.LoopsCompleted, res.Response)
	for _, src := range []string{
		"orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: openai-answer, prompt: hi}\n",
		"orchestrator: {id: w, agents: [a], mcp_servers: {files: {command: [x]}}}\nagents:\n  - {id: a, type: failing}\n",
		"orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: failing, parameters: {type: object}}\n",
		"orchestrator: {id: w, agents: [h]}\nagents:\n  - {id: h, type: human, prompt: q, kind: json, output_schema: {type: object}}\n",
	} {
		_, err := cogloop.Parse([]byte(src), "wf.yaml")
		fmt.Printf("yaml: %s\n", strings.ReplaceAll(fmt.Sprint(err), "\n", " | "))
	}
	_, err = cogloop.Parse([]byte("orchestrator: {id: w, agents: []}\n"), "wf.yaml", cogloop.WithProvider("mine", nil))
	fmt.Printf("provider: %v\n", err)
}
