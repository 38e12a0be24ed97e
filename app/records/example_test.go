package records_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
)

// Record a run from Go, as the CLI does, then read it back.
func Example() {
	dir, _ := os.MkdirTemp("", "runs")
	defer func() { _ = os.RemoveAll(dir) }() // a temp dir
	wf, err := cogloop.Load("../../examples/quality/workflow.yaml")
	if err != nil {
		panic(err)
	}
	replies, _ := os.ReadFile("../../examples/quality/replies.yaml")
	script, err := scripted.Parse(replies, "replies.yaml")
	if err != nil {
		panic(err)
	}

	runs := records.Dir{Path: dir}
	w, _, err := runs.Create("demo", false, nil)
	if err != nil {
		panic(err)
	}
	_, runErr := wf.Run(context.Background(), "Explain recursion", cogloop.WithRunID("demo"),
		cogloop.WithModels(script), cogloop.WithObserver(w.Observe))
	if err := w.Close(); err != nil {
		panic(err)
	}
	if runErr != nil {
		panic(runErr)
	}
	if _, err := runs.Prune("demo"); err != nil {
		panic(err)
	}

	rec, err := runs.Read("demo")
	if err != nil {
		panic(err)
	}
	s := rec.Summarize()
	fmt.Println(s.Workflow, s.Status)
	for _, p := range s.Loops[0].Passes {
		fmt.Printf("pass %d: %.2f %s\n", p.Number, p.Score, p.Lessons.Improvements)
	}
	// Output:
	// quality-workflow ok
	// pass 1: 0.42 use a picture from everyday life.
	// pass 2: 0.71 connect the dolls back to functions.
	// pass 3: 0.90
}
