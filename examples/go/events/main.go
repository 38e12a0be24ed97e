// Command events follows a run's events as a channel: an observer sends each
// event to a channel that another goroutine reads, and the typed accessors
// (LoopPass, LoopEnded) read the loop events' data without map lookups.
//
//	go run ./examples/go/events
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/loopnode"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// scoredDraft answers pass n with a draft and its score.
func scoredDraft(_ context.Context, in agents.Input) (agents.Output, error) {
	scores := []string{"0.30", "0.65", "0.88"}
	n := in.Loop.Number
	return agents.Output{Response: fmt.Sprintf("draft %d\nSCORE: %s", n, scores[min(n, len(scores))-1])}, nil
}

func run(ctx context.Context, out io.Writer) error {
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID: "draft", Body: agents.Func(scoredDraft), MaxLoops: 5, Threshold: 0.85,
	})
	if err != nil {
		return err
	}
	wf, err := cogloop.New("events-demo", loop)
	if err != nil {
		return err
	}

	// The observer runs on the run's goroutines and must return quickly: it
	// only hands each event to the channel; the reader does the work.
	events := make(chan event.Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			if p, ok := e.LoopPass(); ok {
				fmt.Fprintf(out, "%s pass %d: score %.2f (best %.2f), stop %v\n", e.Node, p.Number, p.Score, p.Best, p.Stop)
			}
			if l, ok := e.LoopEnded(); ok {
				fmt.Fprintf(out, "%s ended: %s after %d passes\n", e.Node, l.StopReason, l.LoopsCompleted)
			}
			if s, ok := e.RunStatus(); ok {
				fmt.Fprintf(out, "run %s\n", s)
			}
		}
	}()
	res, err := wf.Run(ctx, "a tagline", cogloop.WithObserver(func(e event.Event) { events <- e }))
	close(events) // Run has returned: no event comes after it
	<-done
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "answer: %q\n", res.Text())
	return nil
}
