// Command service serves a loop built in Go over HTTP, each request under a
// deadline. A request that runs out of time still answers with what the loop
// completed: its passes, its best answer and stop reason timeout.
//
//	go run ./examples/go/service -addr 127.0.0.1:8080
//	curl -d 'Fresh bread' '127.0.0.1:8080/improve?timeout=2s'
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/loopnode"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h, err := newHandler()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// writer drafts pass n; critic scores it. A task that says "(slow)" stands
// for a model slower than any deadline from pass 2 on: its critic answers
// only when the request's context ends.
func writer(_ context.Context, in agents.Input) (agents.Output, error) {
	return agents.Output{Response: fmt.Sprintf("%v, draft %d", in.Loop.Task, in.Loop.Number)}, nil
}

func critic(ctx context.Context, in agents.Input) (agents.Output, error) {
	if strings.Contains(fmt.Sprint(in.Loop.Task), "(slow)") && in.Loop.Number >= 2 {
		<-ctx.Done()
		return agents.Output{}, ctx.Err()
	}
	return agents.Output{Response: fmt.Sprintf("SCORE: 0.%d", 5+2*in.Loop.Number)}, nil
}

// reply is the handler's JSON answer: the loop's typed result.
type reply struct {
	Status     string              `json:"status"`
	StopReason loopnode.StopReason `json:"stop_reason"`
	Passes     int                 `json:"passes"`
	BestAnswer any                 `json:"best_answer"`
	Answer     any                 `json:"answer,omitempty"`
	Error      string              `json:"error,omitempty"`
}

// maxTask bounds a request's task text.
const maxTask = 4 << 10

// newHandler builds the workflow once (it is safe for concurrent runs) and
// serves POST /improve?timeout=D with the task as the body.
func newHandler() (http.Handler, error) {
	loop, err := loopnode.NewLoop(loopnode.Config{
		ID: "improve",
		Body: agents.Sequence{Steps: []agents.Step{
			agents.NewStep("writer", "go", agents.Func(writer)),
			agents.NewStep("critic", "go", agents.Func(critic)),
		}},
		MaxLoops: 4, Threshold: 0.9, OutputAgent: "writer",
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, From: []string{"critic"}},
	})
	if err != nil {
		return nil, err
	}
	wf, err := cogloop.New("service", loop)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /improve", func(w http.ResponseWriter, r *http.Request) {
		timeout := 10 * time.Second
		if s := r.URL.Query().Get("timeout"); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 || d > time.Minute {
				http.Error(w, "timeout must be a duration up to 1m, e.g. 2s", http.StatusBadRequest)
				return
			}
			timeout = d
		}
		task, err := io.ReadAll(io.LimitReader(r.Body, maxTask+1))
		if err != nil || len(task) > maxTask {
			http.Error(w, fmt.Sprintf("the task must be text of at most %d bytes", maxTask), http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		res, err := wf.Run(ctx, string(task))
		code := http.StatusOK
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			code = http.StatusGatewayTimeout
		case err != nil && res == nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		case err != nil:
			code = http.StatusInternalServerError
		}
		out := reply{Status: res.Status}
		if loops := res.Loops(); len(loops) > 0 {
			l := loops[0]
			out.StopReason, out.Passes, out.BestAnswer = l.StopReason, l.LoopsCompleted, l.BestAnswer
			if err == nil {
				out.Answer = l.Response
			}
		}
		if err != nil {
			out.Error = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(out)
	})
	return mux, nil
}
