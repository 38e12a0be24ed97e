package records

import (
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
)

// Summarize summarises a run's events. Without a run.end event the status is
// [StatusIncomplete]; [Record.Summarize] also says why.
func Summarize(events []event.Event) Summary {
	z := summarizer{s: Summary{Status: StatusIncomplete, Loops: []Loop{}, Agents: []Call{}}, open: map[string]int{}}
	z.s.Errors, z.s.Warnings = cogloop.CollectEvents(events)
	if z.s.Errors == nil {
		z.s.Errors = []cogloop.RunError{}
	}
	if z.s.Warnings == nil {
		z.s.Warnings = []cogloop.RunWarning{}
	}
	var last time.Time
	for _, e := range events {
		if !e.Time.IsZero() {
			last = e.Time
		}
		z.add(e)
	}
	if z.s.Complete {
		for _, e := range events {
			if e.Kind == event.RunEnd {
				z.s.Duration = e.Duration
			}
		}
	} else {
		z.incomplete(last)
	}
	return z.s
}

// summarizer builds a Summary one event at a time.
type summarizer struct {
	s    Summary
	open map[string]int // loop path → index in s.Loops of its latest run
}

// add reads one event into the summary.
func (z *summarizer) add(e event.Event) {
	switch e.Kind {
	case event.RunStart:
		z.runStart(e)
	case event.RunEnd:
		z.runEnd(e)
	case event.LoopStart:
		z.loopStart(e)
	case event.LoopIteration:
		if l := z.loop(e.Node); l != nil {
			l.iteration(e)
		}
	case event.LoopCheck:
		if l := z.loop(e.Node); l != nil {
			l.check(e)
		}
	case event.LoopEnd:
		if l := z.loop(e.Node); l != nil {
			l.end(e)
		}
	case event.HumanWait, event.HumanAnswer:
		z.s.noteHuman(e)
	case event.ToolResult:
		z.toolResult(e)
	case event.AgentEnd:
		if e.Type != "loop" {
			z.agentEnd(e)
		}
	}
}

// loop is the latest run of the loop at path, nil when the record has not
// started it.
func (z *summarizer) loop(path string) *Loop {
	if i, ok := z.open[path]; ok {
		return &z.s.Loops[i]
	}
	return nil
}

// runStart reads run.start: when the run started, its id and workflow,
// the run it was forked from, and its budget.
func (z *summarizer) runStart(e event.Event) {
	s := &z.s
	if s.Started.IsZero() {
		s.Started, s.RunID, s.Workflow = e.Time, e.Run, e.Node
	}
	if f, ok := e.Data["forked_from"].(map[string]any); ok && s.ForkedFrom == nil {
		run, _ := f["run"].(string)
		pass, _ := f["pass"].(string)
		s.ForkedFrom = &Fork{Run: run, Pass: pass}
	}
	s.readBudget(e)
}

// runEnd reads run.end: the run's status, error, answer, usage and cost.
func (z *summarizer) runEnd(e event.Event) {
	s := &z.s
	s.Complete = true
	s.Status, _ = e.Data["status"].(string)
	if s.Status == "" { // a record written before run.end said it
		s.Status = cogloop.StatusOK
		if e.Error != "" {
			s.Status = cogloop.StatusFailed
		}
	}
	s.Error, s.Response = e.Error, e.Response
	if e.Usage != nil {
		s.Usage = *e.Usage
	}
	var d struct {
		Cost float64 `json:"cost"`
	}
	decode(e.Data, &d)
	s.Usage.Cost = d.Cost
	s.readBudget(e)
}

// loopStart reads loop.start: a loop's run begins (or a resumed run goes
// on with it).
func (z *summarizer) loopStart(e event.Event) {
	var d struct {
		MaxLoops     int     `json:"max_loops"`
		Threshold    float64 `json:"threshold"`
		ResumedAfter int     `json:"resumed_after"`
	}
	decode(e.Data, &d)
	if l := z.loop(e.Node); l != nil && d.ResumedAfter > 0 {
		// A resumed run goes on with the loop of the record's first
		// part (which may have ended just before the process died).
		l.Ended = false
		return
	}
	z.open[e.Node] = len(z.s.Loops)
	z.s.Loops = append(z.s.Loops, Loop{ID: e.Agent, Path: e.Node, Shape: shape(e.Node), MaxLoops: d.MaxLoops,
		Threshold: d.Threshold, Passes: []Pass{}, Checks: []Check{}})
}

// check reads a loop.check event: the check: before conditions ahead of a pass.
func (l *Loop) check(e event.Event) {
	var d struct {
		Before     int         `json:"before_iteration"`
		Conditions []Condition `json:"conditions"`
		Stop       bool        `json:"stop"`
	}
	decode(e.Data, &d)
	l.Checks = append(l.Checks, Check{Before: d.Before, Conditions: d.Conditions, Stop: d.Stop})
}

// pass is the pass of a loop that the agent at path ran in, nil for an
// agent outside any loop; ok is false for a pass of a loop the record has
// not started.
func (z *summarizer) pass(path string) (p *Pass, ok bool) {
	loop, n, inLoop := passOf(path)
	if !inLoop {
		return nil, true
	}
	l := z.loop(loop)
	if l == nil {
		return nil, false
	}
	return l.pass(n), true
}

// toolResult reads tool.result: a tool call of a pass, or outside loops.
func (z *summarizer) toolResult(e event.Event) {
	var d struct {
		Round int    `json:"round"`
		Tool  string `json:"tool"`
		ID    string `json:"id"`
		Args  string `json:"args"`
	}
	decode(e.Data, &d)
	tc := ToolCall{Path: e.Node, Agent: e.Agent, Round: d.Round, Tool: d.Tool, ID: d.ID, Args: d.Args,
		Result: e.Response, Error: e.Error, Duration: e.Duration}
	switch p, ok := z.pass(e.Node); {
	case p != nil:
		p.Tools = append(p.Tools, tc)
	case ok:
		z.s.Tools = append(z.s.Tools, tc)
	}
}

// agentEnd reads agent.end: an agent call of a pass, or outside loops.
func (z *summarizer) agentEnd(e event.Event) {
	c := Call{Path: e.Node, Agent: e.Agent, Type: e.Type, Prompt: e.Prompt, Response: e.Response,
		Error: e.Error, Duration: e.Duration}
	if e.Usage != nil {
		c.Usage = *e.Usage
	}
	switch p, ok := z.pass(e.Node); {
	case p != nil:
		p.Agents = append(p.Agents, c)
	case ok:
		z.s.Agents = append(z.s.Agents, c)
	}
}

// incomplete sets what a record without run.end can say: the time from the
// start to its last event, and the usage of the model calls recorded.
func (z *summarizer) incomplete(last time.Time) {
	s := &z.s
	s.Status = StatusIncomplete
	if !s.Started.IsZero() {
		s.Duration = last.Sub(s.Started)
	}
	// No run.end to say the total: sum the model calls recorded (the
	// agents that rendered a prompt; a fork's or a loop's usage is its
	// calls' again).
	add := func(cs []Call) {
		for _, c := range cs {
			if c.Prompt != "" {
				s.Usage = s.Usage.Add(c.Usage)
			}
		}
	}
	add(s.Agents)
	for _, l := range s.Loops {
		for _, p := range l.Passes {
			add(p.Agents)
		}
	}
}
