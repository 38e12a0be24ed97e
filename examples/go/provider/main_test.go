package main

import (
	"context"
	"net/http/httptest"
	"os"
)

// A custom provider answers every LLM agent of the run.
func Example() {
	gw := httptest.NewServer(gatewayHandler())
	defer gw.Close()
	if err := run(context.Background(), gw.URL, os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// pass 1: score 0.55, 15 prompt + 11 completion tokens
	// pass 2: score 0.91, 15 prompt + 10 completion tokens
	// stopped by threshold; answer: A loop that learns from its critic.
}
