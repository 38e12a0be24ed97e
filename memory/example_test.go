package memory_test

import (
	"context"
	"fmt"

	"github.com/cogloop/cogloop/memory"
)

// A loop that persists across runs appends one entry per iteration and,
// at the start of the next run, loads the last entries back. An append of
// an iteration already there (a retry, or a resumed run's redo) replaces it.
func Example() {
	ctx := context.Background()
	store, err := memory.NewInMemory(memory.Options{HistoryCap: 20})
	if err != nil {
		panic(err)
	}
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection

	for i := 1; i <= 3; i++ {
		e := memory.Entry{RunID: "run-1", LoopPath: "improve", Iteration: i,
			Data: fmt.Appendf(nil, `{"loop_number":%d,"score":0.%d}`, i, 5+i)}
		if err := store.Append(ctx, "improve", e); err != nil {
			panic(err)
		}
	}
	_ = store.Append(ctx, "improve", memory.Entry{RunID: "run-1", LoopPath: "improve", Iteration: 3, Data: []byte(`{"loop_number":3,"score":0.81}`)})

	past, err := store.History(ctx, "improve", 2)
	if err != nil {
		panic(err)
	}
	for _, e := range past {
		fmt.Println(e.Iteration, string(e.Data))
	}
	// Output:
	// 2 {"loop_number":2,"score":0.7}
	// 3 {"loop_number":3,"score":0.81}
}

// Memory agents write facts to a namespace and read back the most relevant
// ones, ranked by keyword overlap with the query, without any model.
func ExampleInMemory_Recall() {
	ctx := context.Background()
	store, err := memory.NewInMemory(memory.Options{})
	if err != nil {
		panic(err)
	}
	defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
	for _, fact := range []string{
		"The scorer prefers answers under 100 words",
		"Answers with examples scored higher",
		"The improver ignores the word limit",
	} {
		if err := store.Remember(ctx, "lessons", memory.Memory{Content: fact}); err != nil {
			panic(err)
		}
	}
	matches, err := store.Recall(ctx, "lessons", memory.Query{Text: "which answers scored higher?", Threshold: 0.6})
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Printf("%.2f %s\n", m.Similarity, m.Memory.Content)
	}
	// Output:
	// 1.00 Answers with examples scored higher
}
