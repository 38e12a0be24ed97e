package main

import (
	"context"
	"os"
)

// The loop built in Go: the first run needs three passes, the second starts
// from the first run's lessons and meets the threshold in one.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// run 1: stopped by threshold, passes completed: 3, best pass 3 (0.92)
	//   pass 1  0.40  "Fresh bread"
	//   pass 2  0.70  "Fresh bread, baked at dawn"
	//   pass 3  0.92  "Fresh bread, baked at dawn, on Mill Street"
	//   history: 3 entries
	//     pass 1 (0.40) improve: "say when the bread is baked" insight: ""
	//     pass 2 (0.70) improve: "say where the bakery is" insight: ""
	//     pass 3 (0.92) improve: "" insight: "concrete details sell"
	//   answer: Fresh bread, baked at dawn, on Mill Street
	// run 2: stopped by threshold, passes completed: 1, best pass 1 (0.92)
	//   pass 1  0.92  "Fresh bread, baked at dawn, on Mill Street"
	//   history: 4 entries
	//     pass 1 (0.40) improve: "say when the bread is baked" insight: ""
	//     pass 2 (0.70) improve: "say where the bakery is" insight: ""
	//     pass 3 (0.92) improve: "" insight: "concrete details sell"
	//     pass 1 (0.92) improve: "" insight: "concrete details sell"
	//   answer: Fresh bread, baked at dawn, on Mill Street
}
