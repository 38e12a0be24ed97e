package cogloop

import (
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/loopnode"
)

// Run statuses: every run ends one or the other.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// ErrRunFailed means the run finished but failed (its final agent failed, a loop
// stopped with stop_reason error, or the run was stopped by a fatal error or a
// cancellation). [Workflow.Run] wraps it together with the first error.
var ErrRunFailed = errors.New("run failed")

// RunError is one agent failure of a run, also one a loop survived.
type RunError struct {
	// Path is where it happened ("improve › iteration 2 › critic").
	Path string `json:"path"`
	// Agent is the id of the agent (or loop) that failed.
	Agent string `json:"agent"`
	// Message is the error without its path.
	Message string `json:"message"`
}

func (e RunError) Error() string { return fault.JoinPath(e.Path) + ": " + e.Message }

// RunWarning is one warning event of a run (a pass without a score, an
// undefined template name, ...).
type RunWarning struct {
	Path    string `json:"path"`
	Agent   string `json:"agent,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// LoopResult is a loop's output as a Go value (the same data templates see as
// previous_outputs.<loop id>).
type LoopResult struct {
	// ID is the loop's id, Path where it ran (its id at the top level; a loop
	// nested in another loop's internal workflow is "outer › inner", read from
	// the outer loop's returned pass).
	ID, Path string
	// LoopsCompleted counts the passes that ran to the end.
	LoopsCompleted int
	// FinalScore is the last pass's score, BestScore the best one, of pass
	// BestIteration (1-based; 0 when no pass completed).
	FinalScore, BestScore float64
	BestIteration         int
	// ThresholdMet reports that the score reached score_threshold.
	ThresholdMet bool
	// StopReason says why the loop ended: threshold, max_loops, timeout, budget,
	// error, canceled, a stop condition's kind, ...
	StopReason string
	// Error is the error that stopped the loop (stop_reason error), if any.
	Error string
	// Iterations are the passes in order, including one cut short.
	Iterations []IterationResult
	// Usage is the tokens and cost of all passes.
	Usage spend.Usage
	// Response is the loop's answer.
	Response any
}

// IterationResult is one pass of a loop.
type IterationResult struct {
	Number int
	Score  float64
	// ScoreFound is false when no score could be read from the pass's outputs.
	ScoreFound bool
	// Completed is false for a pass cut short (timeout, cancel, a fatal error).
	Completed bool
	Usage     spend.Usage
	Warnings  []string
}

// Loops returns every loop of the run's outputs in run order: the top-level
// loops, loops a fork exposed, and loops nested in an internal workflow (from
// the pass the outer loop returned).
func (r *Result) Loops() []LoopResult {
	var out []LoopResult
	var walk func(prefix string, outs, exposed *agents.Outputs)
	walk = func(prefix string, outs, exposed *agents.Outputs) {
		outs.Each(func(id string, o agents.Output) bool {
			if _, dup := exposed.Get(id); dup {
				return true // a fork's branch agent, recorded next to the fork too
			}
			path := fault.JoinPath(prefix, id)
			if l, ok := loopResult(id, path, o); ok {
				out = append(out, l)
			}
			if o.Children != nil {
				walk(path, o.Children, outs)
			}
			return true
		})
	}
	if r != nil {
		walk("", r.Outputs, nil)
	}
	return out
}

// loopResult is a loop node's typed result (the loop puts it in its output);
// ok is false for other agents, whatever keys their output holds.
func loopResult(id, path string, o agents.Output) (LoopResult, bool) {
	r, ok := o.Typed.(*loopnode.Result)
	if !ok || r == nil {
		return LoopResult{}, false
	}
	l := LoopResult{
		ID: id, Path: path,
		LoopsCompleted: r.LoopsCompleted,
		FinalScore:     r.FinalScore,
		BestScore:      r.BestScore,
		BestIteration:  r.BestIteration,
		ThresholdMet:   r.ThresholdMet,
		StopReason:     r.StopReason,
		Error:          r.Error,
		Usage:          r.Usage,
		Response:       o.Response,
	}
	if l.Usage == (spend.Usage{}) {
		l.Usage = o.Usage
	}
	for _, it := range r.Iterations {
		l.Iterations = append(l.Iterations, IterationResult{Number: it.Number, Score: it.Score, ScoreFound: it.ScoreFound,
			Completed: it.Completed, Usage: it.Usage, Warnings: slices.Clone(it.Warnings)})
	}
	return l, true
}

// collector watches a run's events for what its result reports: agent
// failures, loops stopped by an error, warnings.
type collector struct {
	next event.Observer

	mu       sync.Mutex
	errors   []RunError
	seen     map[string]bool // paths and messages already recorded
	loopErr  bool
	warnings []RunWarning
}

// collects reports whether the collector reads events of kind: of agent.end,
// only those of failed steps.
func collects(kind string) bool {
	return kind == agents.WantFailures || kind == event.LoopEnd || kind == event.Warning
}

func (c *collector) observe(e event.Event) {
	switch {
	case e.Kind == event.AgentEnd && e.Error != "":
		c.addError(e.Node, e.Agent, e.Error)
	case e.Kind == event.LoopEnd && (e.Data["stop_reason"] == "error" || e.Data["failed"] == true):
		c.mu.Lock()
		c.loopErr = true
		c.mu.Unlock()
		msg := e.Error
		if msg == "" {
			msg = "the loop stopped with stop_reason error"
		}
		c.addError(e.Node, e.Agent, msg)
	case e.Kind == event.Warning:
		code, _ := e.Data["code"].(string)
		c.mu.Lock()
		c.warnings = append(c.warnings, RunWarning{Path: e.Node, Agent: e.Agent, Code: code, Message: e.Message})
		c.mu.Unlock()
	}
	if c.next != nil {
		c.next(e)
	}
}

// addError records a failure once per path; the same error reported again by
// an enclosing step (a fatal error passing up through its loop) is skipped.
func (c *collector) addError(path, agent, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen["p:"+path] || c.seen["m:"+text] {
		return
	}
	c.seen["p:"+path], c.seen["m:"+text] = true, true
	errPath, msg := path, text
	if i := strings.Index(text, ": "); i > 0 && isPathPrefix(text[:i], path) {
		errPath, msg = text[:i], text[i+2:]
		if last := lastPart(errPath, agent); errPath != path && !strings.HasPrefix(last, "iteration ") {
			agent = last
		}
	}
	c.errors = append(c.errors, RunError{Path: errPath, Agent: agent, Message: msg})
}

// isPathPrefix reports whether p is path or a path below it.
func isPathPrefix(p, path string) bool {
	return p == path || strings.HasPrefix(p, path+fault.PathSep)
}

// lastPart is the agent id at the end of path, else fallback.
func lastPart(path, fallback string) string {
	if i := strings.LastIndex(path, fault.PathSep); i >= 0 {
		return path[i+len(fault.PathSep):]
	}
	if path != "" {
		return path
	}
	return fallback
}

// CollectEvents replays a run's events (a run record, a trace) and returns the
// errors and warnings the run's [Result] reports, by the same rules.
func CollectEvents(events []event.Event) ([]RunError, []RunWarning) {
	c := &collector{}
	for _, e := range events {
		c.observe(e)
	}
	return c.errors, c.warnings
}
