package serve

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
)

//go:embed assets
var assets embed.FS

var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("pages").ParseFS(assets, "assets/pages.html.tmpl"))
})

// pageData is what a page's template sees.
type pageData struct {
	Title, Page string
	RunID       string
	Status      string
	// Body is HTML rendered by package report's templates.
	Body      template.HTML
	Error     string
	CanStart  bool
	RecordDir string
	Token     bool
	Steer     bool
	Fork      bool
	Runs      []string
	Queues    []queue.QueueSummary
	Workers   []queue.WorkerSummary
	Queued    []queue.Status
}

func (s *Server) page(w http.ResponseWriter, name string, d pageData) {
	d.Page, d.Token, d.Steer, d.Fork = name, s.cfg.Token != "", s.cfg.Answer != nil, s.cfg.Fork != nil
	var buf bytes.Buffer
	if err := pages().ExecuteTemplate(&buf, name, d); err != nil {
		http.Error(w, "render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) runsPage(w http.ResponseWriter, _ *http.Request) {
	s.page(w, "runs", pageData{Title: "Runs", CanStart: s.cfg.Start != nil && s.cfg.Workflows != "", RecordDir: s.cfg.Records.Path})
}

// body renders the report's page body of run id.
func (s *Server) body(id string) (records.Summary, template.HTML, error) {
	sum, err := s.summary(id)
	if err != nil {
		return sum, "", err
	}
	var buf bytes.Buffer
	if err := report.WriteBody(&buf, sum); err != nil {
		return sum, "", err
	}
	return sum, template.HTML(buf.String()), nil // #nosec G203 -- rendered by html/template: every value escaped
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if records.CheckID(id) != nil {
		http.NotFound(w, r)
		return
	}
	sum, body, err := s.body(id)
	if err != nil {
		w.WriteHeader(http.StatusNotFound)
		s.page(w, "error", pageData{Title: "No such run", Error: err.Error()})
		return
	}
	s.page(w, "run", pageData{Title: "Run " + id, RunID: id, Status: sum.Status, Body: body})
}

// runBody is the report's body of a run, for the live page to refresh.
func (s *Server) runBody(w http.ResponseWriter, r *http.Request) {
	id, ok := runID(w, r)
	if !ok {
		return
	}
	sum, body, err := s.body(id)
	if err != nil {
		notFoundOr500(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Run-Status", sum.Status)
	if u, err := json.Marshal(sum.Usage); err == nil {
		w.Header().Set("X-Run-Usage", string(u)) // the run's tokens and cost so far, for the live panel
	}
	_, _ = w.Write([]byte(body))
}

// maxCompare bounds the runs of one comparison.
const maxCompare = 8

func (s *Server) comparePage(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for _, id := range strings.Split(r.URL.Query().Get("runs"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 || len(ids) > maxCompare {
		d := pageData{Title: "Compare"}
		if len(ids) > 0 {
			d.Error = "Compare two to eight runs: /compare?runs=a,b"
		}
		s.page(w, "compare", d)
		return
	}
	var sums []records.Summary
	for _, id := range ids {
		if err := records.CheckID(id); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			s.page(w, "compare", pageData{Title: "Compare", Error: err.Error()})
			return
		}
		sum, err := s.summary(id)
		if err != nil {
			w.WriteHeader(http.StatusNotFound)
			s.page(w, "compare", pageData{Title: "Compare", Error: err.Error()})
			return
		}
		sums = append(sums, sum)
	}
	var buf bytes.Buffer
	if err := report.WriteCompare(&buf, sums); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.page(w, "compare", pageData{Title: "Compare", Runs: ids, Body: template.HTML(buf.String())}) // #nosec G203 -- rendered by html/template
}

func (s *Server) queuePage(w http.ResponseWriter, r *http.Request) {
	d := pageData{Title: "Queue"}
	if s.cfg.Queue == nil {
		d.Error = "This server shows no queue: start it with --redis URL (the Redis that cogloop submit and worker use)."
		s.page(w, "queue", d)
		return
	}
	qs, ws, err := s.cfg.Queue.Overview(r.Context())
	if err == nil {
		d.Queued, err = s.cfg.Queue.Runs(r.Context(), 50)
	}
	if err != nil {
		d.Error = err.Error()
	}
	d.Queues, d.Workers = qs, ws
	s.page(w, "queue", d)
}

// asset serves an embedded file, and the report's stylesheet as report.css.
func asset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	ctype, ok := types[path.Ext(name)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	var data []byte
	if name == "report.css" {
		data = []byte(report.Style())
	} else {
		var err error
		if data, err = assets.ReadFile("assets/" + name); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}
