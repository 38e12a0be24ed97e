package main

import (
	"context"
	"os"
)

// The run's events, read from a channel.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// draft pass 1: score 0.30 (best 0.30), stop false
	// draft pass 2: score 0.65 (best 0.65), stop false
	// draft pass 3: score 0.88 (best 0.88), stop true
	// draft ended: threshold after 3 passes
	// run ok
	// answer: "draft 3\nSCORE: 0.88"
}
