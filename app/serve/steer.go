package serve

import (
	"context"
	"errors"
	"net"
	"net/http"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/types/human"
)

// errNoSteer: this server answers and pauses no runs.
var errNoSteer = errors.New("this server steers no runs: its serve.Config has no Answer and Pause (cogloop serve always sets them)")

// steering adds POST /api/runs/{id}/answer and POST /api/runs/{id}/pause.
func (s *Server) steering(m *http.ServeMux) {
	m.HandleFunc("POST /api/runs/{id}/answer", s.apiAnswer)
	m.HandleFunc("POST /api/runs/{id}/pause", s.apiPause)
	m.HandleFunc("POST /api/runs/{id}/fork", s.apiFork)
}

// steerError answers err of the steering API with its status: 409 for a
// run in the wrong state, 400 for an answer the question does not take.
func steerError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, cogloop.ErrNotWaiting), errors.Is(err, cogloop.ErrAlreadyAnswered), errors.Is(err, cogloop.ErrNotRunning):
		apiError(w, http.StatusConflict, err.Error())
	case errors.Is(err, human.ErrWrongKind), errors.Is(err, human.ErrBadAnswer):
		apiError(w, http.StatusBadRequest, err.Error())
	default:
		apiError(w, http.StatusInternalServerError, err.Error())
	}
}

func (s *Server) apiAnswer(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	if s.cfg.Answer == nil {
		apiError(w, http.StatusNotImplemented, errNoSteer.Error())
		return
	}
	var body struct {
		Kind     string  `json:"kind"`
		Approved bool    `json:"approved"`
		Score    float64 `json:"score"`
		Text     string  `json:"text"`
		Choice   string  `json:"choice"`
		JSON     any     `json:"json"`
		Comment  string  `json:"comment"`
		Path     string  `json:"path"`
	}
	if !decodeBody(w, r, &body) {
		return
	}
	if body.Kind == "" {
		apiError(w, http.StatusBadRequest, "give the answer's kind (approve, score, text, choice or json), as the question's human.wait event says")
		return
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	a := human.Answer{Kind: body.Kind, Approved: body.Approved, Score: body.Score, Text: body.Text, Choice: body.Choice,
		JSON: body.JSON, Comment: body.Comment, Path: body.Path, By: "cogloop serve (" + host + ")"}
	cont, err := s.cfg.Answer(r.Context(), id, a)
	if err != nil {
		steerError(w, err)
		return
	}
	if err := s.background(id, cont); err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"run_id": id, "status": "answered: the run continues"})
}

func (s *Server) apiPause(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	if s.cfg.Pause == nil {
		apiError(w, http.StatusNotImplemented, errNoSteer.Error())
		return
	}
	if err := s.cfg.Pause(r.Context(), id); err != nil {
		steerError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"run_id": id, "status": "pause requested: the run stops at its next pass boundary"})
}

// background continues run id with cont after the request, as a run the
// server started.
func (s *Server) background(id string, cont func(context.Context) error) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("the server is shutting down")
	}
	s.live[id] = true
	s.runs.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.runs.Done()
		err := cont(s.ctx)
		s.mu.Lock()
		delete(s.live, id)
		s.mu.Unlock()
		if err != nil {
			s.logf("run %s, continued after its answer: %v", id, err)
		}
		s.wake(id)
	}()
	return nil
}
