package main

import (
	"fmt"
	"net/http/httptest"
	"strings"
)

// Two requests: one the loop answers in time, one whose model is slower
// than the request's deadline from pass 2 on; the second still reports pass 1.
func Example() {
	h, err := newHandler()
	if err != nil {
		panic(err)
	}
	for _, task := range []string{"Fresh bread", "Fresh bread (slow)"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/improve?timeout=300ms", strings.NewReader(task)))
		fmt.Println(rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	// Output:
	// 200 {"status":"ok","stop_reason":"threshold","passes":2,"best_answer":"Fresh bread, draft 2","answer":"Fresh bread, draft 2"}
	// 504 {"status":"failed","stop_reason":"timeout","passes":1,"best_answer":"Fresh bread (slow), draft 1","error":"run failed: workflow \"service\": improve: context deadline exceeded"}
}
