package serve

import (
	"context"
	"errors"
	"net/http"
	"os"
	"sync"

	"github.com/cogloop/cogloop/agents/event"
)

// ForkRequest is one fork to start: a new run that keeps the passes of run
// Parent before Pass and runs from Pass on.
type ForkRequest struct {
	RunID, Parent string
	// Pass is the fork point: "3", "improve:3" or "outer:2/inner:3".
	Pass string
	// Workflow is the workflow file and Replies its scripted replies ("":
	// the parent's, and the replies it ran with).
	Workflow, Replies string
	// Input, when set, replaces the parent's input.
	Input *string
	// Observe hears every event of the run as it happens.
	Observe event.Observer
}

// errNoFork: this server forks no runs.
var errNoFork = errors.New("this server forks no runs: its serve.Config has no Fork (cogloop serve always sets it)")

// apiFork is POST /api/runs/{id}/fork {"pass", "workflow", "input"}: 201
// {"run_id"} once the fork has begun; a fork the run refuses before it
// begins (a changed loop structure, a pass the parent did not reach, no
// checkpoint) is a 409 with its message.
func (s *Server) apiFork(w http.ResponseWriter, r *http.Request) {
	parent, ok := runID(w, r)
	if !ok {
		return
	}
	if s.cfg.Fork == nil {
		apiError(w, http.StatusNotImplemented, errNoFork.Error())
		return
	}
	var body struct {
		Pass     string  `json:"pass"`
		Workflow string  `json:"workflow"`
		Input    *string `json:"input"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Pass == "" {
		apiError(w, http.StatusBadRequest, `give the pass to fork from: "3", "improve:3" or "outer:2/inner:3"`)
		return
	}
	req := ForkRequest{RunID: newRunID(), Parent: parent, Pass: body.Pass, Input: body.Input}
	if body.Workflow != "" {
		if s.cfg.Workflows == "" {
			apiError(w, http.StatusBadRequest, "a fork with another workflow needs cogloop serve --workflows DIR; leave out workflow to fork with the parent's")
			return
		}
		wf, err := resolveWorkflow(s.cfg.Workflows, body.Workflow)
		if err != nil {
			apiError(w, http.StatusBadRequest, err.Error())
			return
		}
		req.Workflow, req.Replies = wf.path, wf.replies
	}
	began, err := s.launch(req.RunID, "fork of "+parent, func(ctx context.Context, observe event.Observer) error {
		req.Observe = observe
		return s.cfg.Fork(ctx, req)
	})
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	select {
	case err = <-began:
	case <-r.Context().Done():
		return // the client left; the fork goes on
	}
	if err != nil {
		apiError(w, http.StatusConflict, err.Error())
		return
	}
	w.Header().Set("Location", "/api/runs/"+req.RunID)
	writeJSON(w, http.StatusCreated, map[string]string{"run_id": req.RunID})
}

// launch runs run as run id of this server, in the background. The channel
// it returns receives nil once the run's run.start event happens, or the
// error run ended with before that (a run refused before it began).
func (s *Server) launch(id, what string, run func(context.Context, event.Observer) error) (<-chan error, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("the server is shutting down")
	}
	s.live[id] = true
	s.runs.Add(1)
	s.mu.Unlock()
	began := make(chan error, 1)
	var once sync.Once
	begin := func(err error) { once.Do(func() { began <- err }) }
	go func() {
		defer s.runs.Done()
		err := run(s.ctx, func(ev event.Event) {
			if ev.Kind == event.RunStart {
				begin(nil)
			}
			s.wake(id)
		})
		begin(err)
		s.mu.Lock()
		delete(s.live, id)
		if err != nil {
			if _, serr := os.Stat(s.cfg.Records.File(id)); serr != nil {
				s.startErr[id] = err.Error()
			}
		}
		s.mu.Unlock()
		if err != nil {
			s.logf("run %s (%s): %v", id, what, err)
		}
		s.wake(id)
	}()
	return began, nil
}
