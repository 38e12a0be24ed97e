package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
)

// Bounds of the API.
const (
	maxBody     = 1 << 20 // a POST's body
	defaultList = 200     // runs listed unless ?limit= says otherwise
	maxList     = 2000
	// recentWrite: a record without its end that changed this recently
	// counts as running (a run elsewhere is writing it).
	recentWrite = 30 * time.Second
)

// RunItem is one run in GET /api/runs.
type RunItem struct {
	RunID    string        `json:"run_id"`
	Workflow string        `json:"workflow"`
	Status   string        `json:"status"`
	Started  time.Time     `json:"started,omitzero"`
	Duration time.Duration `json:"duration_ns"`
	Passes   int           `json:"passes"`
	// Score is the final score of the run's last loop (none without one).
	Score *float64    `json:"score,omitempty"`
	Usage spend.Usage `json:"usage"`
	Error string      `json:"error,omitempty"`
}

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.runsPage)
	m.HandleFunc("GET /runs/{id}", s.runPage)
	m.HandleFunc("GET /runs/{id}/body", s.runBody)
	m.HandleFunc("GET /compare", s.comparePage)
	m.HandleFunc("GET /queue", s.queuePage)
	m.HandleFunc("GET /login", s.login)
	m.HandleFunc("POST /login", s.login)
	m.HandleFunc("GET /assets/{name}", asset)
	m.HandleFunc("GET /api/runs", s.apiRuns)
	m.HandleFunc("POST /api/runs", s.apiStart)
	m.HandleFunc("GET /api/runs/{id}", s.apiRun)
	m.HandleFunc("GET /api/runs/{id}/events", s.apiEvents)
	m.HandleFunc("GET /api/workflows", s.apiWorkflows)
	m.HandleFunc("GET /api/queue", s.apiQueue)
	s.steering(m)
	return m
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// HTML-escaped (<, >, & as \u003c…): a JSON answer opened as a page, or
	// placed in a script by someone, shows no markup of a model's.
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// runID is the {id} of the request, checked as a record's name.
func runID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if err := records.CheckID(id); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return "", false
	}
	return id, true
}

func (s *Server) apiRuns(w http.ResponseWriter, r *http.Request) {
	limit := defaultList
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxList {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("limit must be a number from 1 to %d", maxList))
			return
		}
		limit = n
	}
	items, err := s.list(limit)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	q := r.URL.Query()
	out := items[:0:0]
	for _, it := range items {
		if wf := q.Get("workflow"); wf != "" && it.Workflow != wf {
			continue
		}
		if st := q.Get("status"); st != "" && it.Status != st {
			continue
		}
		out = append(out, it)
	}
	writeJSON(w, http.StatusOK, map[string]any{"runs": out})
}

// listCache keeps the item of a record file until it changes.
type listCache struct {
	mu    sync.Mutex
	items map[string]cached
}

type cached struct {
	size int64
	mod  time.Time
	item RunItem
}

// list is the newest limit runs, newest first: the records, and the runs
// started here that have no record yet.
func (s *Server) list(limit int) ([]RunItem, error) {
	des, err := os.ReadDir(s.cfg.Records.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	type file struct {
		id   string
		info fs.FileInfo
	}
	var files []file
	for _, de := range des {
		id, ok := strings.CutSuffix(de.Name(), records.Ext)
		if !ok || !de.Type().IsRegular() {
			continue
		}
		if info, err := de.Info(); err == nil {
			files = append(files, file{id, info})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].info.ModTime().After(files[j].info.ModTime()) })
	if len(files) > limit {
		files = files[:limit]
	}
	var out []RunItem
	seen := map[string]bool{}
	for _, f := range files {
		it, err := s.item(f.id, f.info)
		if err != nil {
			continue // removed meanwhile (pruned)
		}
		seen[f.id] = true
		out = append(out, it)
	}
	s.mu.Lock()
	for id := range s.live {
		if !seen[id] {
			out = append([]RunItem{{RunID: id, Status: report.StatusRunning}}, out...)
		}
	}
	for id, msg := range s.startErr {
		if !seen[id] {
			out = append(out, RunItem{RunID: id, Status: "failed", Error: msg})
		}
	}
	s.mu.Unlock()
	return out, nil
}

func (s *Server) item(id string, info fs.FileInfo) (RunItem, error) {
	path := s.cfg.Records.File(id)
	s.cache.mu.Lock()
	c, ok := s.cache.items[path]
	s.cache.mu.Unlock()
	if !ok || c.size != info.Size() || !c.mod.Equal(info.ModTime()) {
		rec, err := records.ReadFile(path)
		if err != nil {
			return RunItem{}, err
		}
		c = cached{size: info.Size(), mod: info.ModTime(), item: newItem(rec.Summarize())}
		s.cache.mu.Lock()
		if s.cache.items == nil {
			s.cache.items = map[string]cached{}
		}
		s.cache.items[path] = c
		s.cache.mu.Unlock()
	}
	it := c.item
	it.Status = s.status(id, it.Status, info.ModTime())
	return it, nil
}

func newItem(sum records.Summary) RunItem {
	it := RunItem{RunID: sum.RunID, Workflow: sum.Workflow, Status: sum.Status, Started: sum.Started,
		Duration: sum.Duration, Usage: sum.Usage, Error: sum.Error}
	for _, l := range sum.Loops {
		if l.Nested() {
			continue
		}
		it.Passes += len(l.Passes)
		score := l.FinalScore
		if !l.Ended && len(l.Passes) > 0 {
			score = l.Passes[len(l.Passes)-1].Score
		}
		it.Score = &score
	}
	return it
}

// status is a run's status: a record without its end is running while this
// server runs it or something wrote to it lately, incomplete otherwise.
func (s *Server) status(id, recorded string, mod time.Time) string {
	if recorded != records.StatusIncomplete {
		return recorded
	}
	if s.isLive(id) || time.Since(mod) < recentWrite {
		return report.StatusRunning
	}
	return recorded
}

// summary reads run id's record.
func (s *Server) summary(id string) (records.Summary, error) {
	path := s.cfg.Records.File(id)
	info, err := os.Stat(path)
	if err != nil {
		s.mu.Lock()
		live, msg := s.live[id], s.startErr[id]
		s.mu.Unlock()
		switch {
		case live:
			return records.Summary{RunID: id, Status: report.StatusRunning, Complete: false}, nil
		case msg != "":
			return records.Summary{RunID: id, Status: "failed", Complete: true, Error: msg}, nil
		}
		return records.Summary{}, fmt.Errorf("run %s: %w in %s", id, records.ErrNotFound, s.cfg.Records.Path)
	}
	rec, err := records.ReadFile(path)
	if err != nil {
		return records.Summary{}, err
	}
	sum := rec.Summarize()
	sum.Status = s.status(id, sum.Status, info.ModTime())
	return sum, nil
}

func (s *Server) apiRun(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	sum, err := s.summary(id)
	if err != nil {
		notFoundOr500(w, err)
		return
	}
	writeJSON(w, http.StatusOK, sum)
}

func notFoundOr500(w http.ResponseWriter, err error) {
	if errors.Is(err, records.ErrNotFound) {
		apiError(w, http.StatusNotFound, err.Error())
		return
	}
	apiError(w, http.StatusInternalServerError, err.Error())
}

// decodeBody reads a POST's JSON body into v, bounded.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("the body must be one JSON object (at most 1 MiB): %v", err))
		return false
	}
	return true
}

func (s *Server) apiStart(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Workflow string `json:"workflow"`
		Input    string `json:"input"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	id, err := s.start(req.Workflow, req.Input)
	switch {
	case errors.Is(err, errNoStart):
		apiError(w, http.StatusForbidden, err.Error())
		return
	case errors.Is(err, errBadWorkflow):
		apiError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	w.Header().Set("Location", "/api/runs/"+id)
	writeJSON(w, http.StatusCreated, map[string]string{"run_id": id})
}

func (s *Server) apiWorkflows(w http.ResponseWriter, _ *http.Request) {
	if s.cfg.Workflows == "" || s.cfg.Start == nil {
		writeJSON(w, http.StatusOK, map[string]any{"workflows": []string{}, "note": errNoStart.Error()})
		return
	}
	names, err := listWorkflows(s.cfg.Workflows)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if names == nil {
		names = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"workflows": names})
}

func (s *Server) apiQueue(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Queue == nil {
		apiError(w, http.StatusNotFound, "this server shows no queue: give cogloop serve --redis URL")
		return
	}
	qs, ws, err := s.cfg.Queue.Overview(r.Context())
	if err != nil {
		apiError(w, http.StatusBadGateway, err.Error())
		return
	}
	runs, err := s.cfg.Queue.Runs(r.Context(), 50)
	if err != nil {
		apiError(w, http.StatusBadGateway, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"queues": qs, "workers": ws, "runs": runs})
}
