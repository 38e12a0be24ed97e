// Command bareloop is the binsize scenario's floor: the loop node of
// examples/go/loop (two Go agents, a score, lessons, history in an in-memory
// store) run by hand through loopnode and agents, without the cogloop
// façade. Its size is what the packages under the façade cost; the façade's
// own share is the difference to examples/go/loop.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	writer := func(_ context.Context, in agents.Input) (agents.Output, error) {
		draft := fmt.Sprint(in.Loop.Task)
		for _, p := range in.Loop.Past() {
			if strings.Contains(p.Improvements, "when") {
				draft += ", baked at dawn"
			}
		}
		return agents.Output{Response: draft}, nil
	}
	critic := func(_ context.Context, in agents.Input) (agents.Output, error) {
		w, _ := in.Previous.Get("writer")
		if !strings.Contains(agents.Text(w.Response), "dawn") {
			return agents.Output{Response: "IMPROVE: say when the bread is baked\nSCORE: 0.40"}, nil
		}
		return agents.Output{Response: "INSIGHT: concrete details sell\nSCORE: 0.92"}, nil
	}
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID: "tagline",
		Body: agents.Sequence{Steps: []agents.Step{
			agents.NewStep("writer", "go", agents.Func(writer)),
			agents.NewStep("critic", "go", agents.Func(critic)),
		}},
		MaxLoops:    5,
		Threshold:   0.9,
		OutputAgent: "writer",
		Score:       scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, From: []string{"critic"}},
		Lessons: cognition.ExtractConfig{Patterns: cognition.ExtractPatterns{
			Insights:     []string{`INSIGHT:\s*([^\n]+)`},
			Improvements: []string{`IMPROVE:\s*([^\n]+)`},
		}},
		Persist: true,
	})
	if err != nil {
		return err
	}
	store, err := memory.NewInMemory(memory.Options{})
	if err != nil {
		return err
	}
	out, err := loop.Run(context.Background(), agents.Input{Value: "Fresh bread", Run: &agents.Run{ID: "bare", Workflow: "bakery", Memory: store}})
	if err != nil {
		return err
	}
	fmt.Println(out.Text())
	return nil
}
