package queue

import (
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/pyvalue"
)

// maxEvents caps the events a [Record] keeps (the last ones, across attempts).
const maxEvents = 100

// Record is what a worker writes about a run into its task's result field:
// while it runs, its progress; when it ends, its outcome and JSON document.
type Record struct {
	RunID  string `json:"run_id"`
	State  string `json:"state"`
	Worker string `json:"worker"`
	// Attempt counts deliveries of the run to a worker, from 1.
	Attempt int `json:"attempt"`
	// Attempts lists every attempt, oldest first (worker, start, how it ended).
	Attempts []Attempt `json:"attempts"`
	// Loops is the progress of each loop of the run, by path.
	Loops   []LoopProgress `json:"loops,omitempty"`
	Updated time.Time      `json:"updated"`
	// Error is why the run failed or cannot run.
	Error string `json:"error,omitempty"`
	// Result is the run's JSON document (as `cogloop run --json` prints it).
	Result json.RawMessage `json:"result,omitempty"`
	// LoopResults are the typed results of the run's top-level loops, by
	// output id (what [Client.Result] gives back as Result.Loops()).
	LoopResults json.RawMessage `json:"loop_results,omitempty"`
	// Events are the last 100 events of the run (maxEvents).
	Events []EventSummary `json:"events,omitempty"`
}

// Attempt is one delivery of the run.
type Attempt struct {
	Worker string    `json:"worker"`
	Start  time.Time `json:"start"`
	// ResumedAfter counts the passes restored from the checkpoint, per loop.
	ResumedAfter map[string]int `json:"resumed_after,omitempty"`
	End          string         `json:"end,omitempty"` // done, failed, drained, or empty while running
}

// LoopProgress is where a loop is: Pass passes of at most Max completed.
type LoopProgress struct {
	Path  string  `json:"path"`
	Pass  int     `json:"pass"`
	Max   int     `json:"max"`
	Score float64 `json:"score"`
	Done  bool    `json:"done,omitempty"`
}

// EventSummary is an event without prompts and responses.
type EventSummary struct {
	Kind    string    `json:"kind"`
	Time    time.Time `json:"time"`
	Node    string    `json:"node,omitempty"`
	Pass    int       `json:"pass,omitempty"`
	Score   *float64  `json:"score,omitempty"`
	Error   string    `json:"error,omitempty"`
	Message string    `json:"message,omitempty"`
	Attempt int       `json:"attempt"`
}

// Final reports whether the run ended (done or failed).
func (r *Record) Final() bool { return r != nil && (r.State == Done || r.State == Failed) }

// recorder keeps a run's record up to date from its events and writes it to
// w (the task's result) at every loop pass and at the end.
type recorder struct {
	mu  sync.Mutex
	rec Record
	w   io.Writer
	err error // the last write error, reported at the end
}

func newRecorder(w io.Writer, prev *Record, runID, worker string, attempt int) *recorder {
	rec := Record{RunID: runID, State: Running, Worker: worker, Attempt: attempt}
	if prev != nil {
		rec.Attempts = prev.Attempts
		rec.Events = prev.Events
	}
	rec.Attempts = append(rec.Attempts, Attempt{Worker: worker, Start: time.Now().UTC()})
	return &recorder{rec: rec, w: w}
}

func (r *recorder) observe(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	flush := false
	s := EventSummary{Kind: e.Kind, Time: e.Time, Node: e.Node, Error: e.Error, Message: e.Message, Attempt: r.rec.Attempt}
	switch e.Kind {
	case event.LoopStart:
		lp := r.loop(e.Node)
		maxLoops, _ := pyvalue.Number(e.Data["max_loops"])
		lp.Max = int(maxLoops)
		resumed, _ := pyvalue.Number(e.Data["resumed_after"])
		if n := int(resumed); n > 0 {
			lp.Pass = n
			at := &r.rec.Attempts[len(r.rec.Attempts)-1]
			if at.ResumedAfter == nil {
				at.ResumedAfter = map[string]int{}
			}
			at.ResumedAfter[e.Node] = n
		}
		flush = true
	case event.LoopIteration:
		lp := r.loop(e.Node)
		pass, _ := pyvalue.Number(e.Data["loop_number"])
		s.Pass = int(pass)
		if e.Data["completed"] == true {
			lp.Pass = s.Pass
			if sc, ok := e.Data["score"].(float64); ok {
				lp.Score, s.Score = sc, &sc
			}
		}
		flush = true
	case event.LoopEnd:
		r.loop(e.Node).Done = true
		flush = true
	case event.Warning, event.RunStart:
		flush = true
	case event.AgentStart, event.BranchStart, event.BranchEnd:
		return // too many to keep, nothing to learn
	}
	r.rec.Events = append(r.rec.Events, s)
	if n := len(r.rec.Events) - maxEvents; n > 0 {
		r.rec.Events = append(r.rec.Events[:0:0], r.rec.Events[n:]...)
	}
	if flush {
		r.write()
	}
}

// loop returns the progress entry of the loop at path; r.mu is held.
func (r *recorder) loop(path string) *LoopProgress {
	for i := range r.rec.Loops {
		if r.rec.Loops[i].Path == path {
			return &r.rec.Loops[i]
		}
	}
	r.rec.Loops = append(r.rec.Loops, LoopProgress{Path: path})
	return &r.rec.Loops[len(r.rec.Loops)-1]
}

// write stores the record; r.mu is held.
func (r *recorder) write() {
	r.rec.Updated = time.Now().UTC()
	data, err := json.Marshal(r.rec)
	if err == nil {
		_, err = r.w.Write(data)
	}
	if err != nil {
		r.err = err
	}
}

// finish records how the attempt ended and writes the record.
func (r *recorder) finish(state, errText string, res *cogloop.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rec.State, r.rec.Error = state, errText
	r.rec.Attempts[len(r.rec.Attempts)-1].End = state
	if res != nil {
		doc, err := json.Marshal(res.Document())
		if err != nil {
			return err
		}
		r.rec.Result = doc
		if r.rec.LoopResults, err = loopRecords(res); err != nil {
			return err
		}
	}
	r.err = nil
	r.write()
	return r.err
}

// plainKey finds the load warning about an API key written in the workflow.
func plainKey(wf *cogloop.Workflow) (load.Problem, bool) {
	for _, p := range wf.Warnings {
		if strings.Contains(p.Msg, "API key in a workflow file") {
			return p, true
		}
	}
	return load.Problem{}, false
}
