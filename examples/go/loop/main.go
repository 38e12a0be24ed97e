// Command loop builds a scored loop in Go (no YAML): a writer and a critic
// written as Go functions, a score pattern, lesson patterns, and history
// persisted across runs in an in-memory store (no Redis). It runs the loop
// twice and prints the typed result: the second run starts from the first
// run's lessons.
//
//	go run ./examples/go/loop
//
// It needs none of the agent types that call models or tools, so it can be
// built without them (README "Binary size"): go build -tags cogloop_core.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// writer drafts a tagline for the task and applies every improvement the
// loop's history holds (this run's passes, and earlier runs' when persisted).
func writer(_ context.Context, in agents.Input) (agents.Output, error) {
	draft := fmt.Sprint(in.Loop.Task) // the task text, without OrKa's wrapper
	var learned []string
	for _, p := range in.Loop.Past() {
		learned = append(learned, p.Improvements)
	}
	all := strings.Join(learned, " ")
	if strings.Contains(all, "when") {
		draft += ", baked at dawn"
	}
	if strings.Contains(all, "where") {
		draft += ", on Mill Street"
	}
	return agents.Output{Response: draft}, nil
}

// critic reviews the writer's draft: what to improve, and a score.
func critic(_ context.Context, in agents.Input) (agents.Output, error) {
	w, _ := in.Previous.Get("writer")
	draft := agents.Text(w.Response)
	switch {
	case !strings.Contains(draft, "dawn"):
		return agents.Output{Response: "IMPROVE: say when the bread is baked\nSCORE: 0.40"}, nil
	case !strings.Contains(draft, "Street"):
		return agents.Output{Response: "IMPROVE: say where the bakery is\nSCORE: 0.70"}, nil
	}
	return agents.Output{Response: "INSIGHT: concrete details sell\nSCORE: 0.92"}, nil
}

// newWorkflow builds the loop and its workflow.
func newWorkflow() (*cogloop.Workflow, error) {
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
		Persist: true, // history outlives the run, in the run's memory store
	})
	if err != nil {
		return nil, err
	}
	return cogloop.New("bakery", loop)
}

func run(ctx context.Context, out io.Writer) error {
	wf, err := newWorkflow()
	if err != nil {
		return err
	}
	// One store for both runs: an in-memory one here, memory/redis to share
	// history between processes.
	store, err := memory.NewInMemory(memory.Options{})
	if err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		res, err := wf.Run(ctx, "Fresh bread", cogloop.WithMemory(store))
		if err != nil {
			return err
		}
		l := res.Loops()[0]
		fmt.Fprintf(out, "run %d: stopped by %s, passes completed: %d, best pass %d (%.2f)\n", i, l.StopReason, l.LoopsCompleted, l.BestIteration, l.BestScore)
		for _, it := range l.Iterations {
			fmt.Fprintf(out, "  pass %d  %.2f  %q\n", it.Number, it.Score, it.Answer)
		}
		fmt.Fprintf(out, "  history: %d entries\n", len(l.PastLoops))
		for _, p := range l.PastLoops {
			fmt.Fprintf(out, "    pass %d (%.2f) improve: %q insight: %q\n", p.Number, p.Score, p.Improvements, p.Insights)
		}
		fmt.Fprintf(out, "  answer: %v\n", res.Response)
	}
	return nil
}
