package records

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/loopnode"
)

// StatusIncomplete is the status of a record without its run.end event: the
// run was killed, or is still running.
const StatusIncomplete = "incomplete"

// Summary is what a run record says about its run.
type Summary struct {
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow"`
	// Status is ok, failed, waiting, paused, or incomplete (see Problem).
	Status   string `json:"status"`
	Complete bool   `json:"complete"`
	Problem  string `json:"problem,omitempty"`
	// Skipped names lines of the record that were not events.
	Skipped  []string      `json:"skipped_lines,omitempty"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// Error is the error that stopped the run, if one did.
	Error    string `json:"error,omitempty"`
	Response string `json:"response,omitempty"`
	// Usage is the run's tokens and cost.
	Usage    spend.Usage          `json:"usage"`
	Errors   []cogloop.RunError   `json:"errors"`
	Warnings []cogloop.RunWarning `json:"warnings"`
	// Loops are every loop run in the order they started; a loop nested in
	// another's internal workflow runs (and is listed) once per outer pass.
	Loops []Loop `json:"loops"`
	// Agents are the calls of agents outside any loop, in the order they ended.
	Agents []Call `json:"agents"`
	// Tools are the tool calls made outside any loop, in the order they ended.
	Tools []ToolCall `json:"tools,omitempty"`
	// Humans are the questions the run asked people and their answers, in
	// the order asked (humans.go).
	Humans []Human `json:"humans,omitempty"`
	// Budget is the workflow's budget (from run.start, and whether it was
	// exceeded from run.end); nil when the workflow has none.
	Budget *Budget `json:"budget,omitempty"`
	// ForkedFrom is the run this one was forked from (cogloop fork), and
	// the pass it runs from; nil for a run that is not a fork.
	ForkedFrom *Fork `json:"forked_from,omitempty"`
	// Forks are the runs forked from this one, with their passes: the
	// reader of records fills them in ([Dir.Forks]); a record alone does
	// not know them.
	Forks []Fork `json:"forks,omitempty"`
}

// Budget is a workflow's budget: its limits (0: none) and whether the run
// went over one.
type Budget struct {
	MaxTokens int     `json:"max_tokens,omitempty"`
	MaxCost   float64 `json:"max_cost,omitempty"`
	Exceeded  bool    `json:"exceeded,omitempty"`
}

// Fork is one end of a fork: a run and the pass the fork runs from
// ("3", "improve:3", "outer:2/inner:3").
type Fork struct {
	Run  string `json:"run"`
	Pass string `json:"pass"`
}

// Loop is one run of a loop node.
type Loop struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	// Shape is Path without its iteration parts ("outer › inner"): the runs
	// of one nested loop share it.
	Shape          string  `json:"shape"`
	MaxLoops       int     `json:"max_loops"`
	Threshold      float64 `json:"threshold"`
	LoopsCompleted int     `json:"loops_completed"`
	FinalScore     float64 `json:"final_score"`
	BestScore      float64 `json:"best_score"`
	BestIteration  int     `json:"best_iteration"`
	StopReason     string  `json:"stop_reason"`
	// Error is the error that stopped the loop (stop_reason error).
	Error string      `json:"error,omitempty"`
	Usage spend.Usage `json:"usage"`
	// Ended reports that the record holds the loop's loop.end event.
	Ended  bool   `json:"ended"`
	Passes []Pass `json:"passes"`
	// Checks are the check: before conditions evaluated ahead of passes.
	Checks []Check `json:"checks"`
}

// Check is the evaluation of a loop's check: before conditions ahead of pass
// Before; Stop reports that they ended the loop there.
type Check struct {
	Before     int         `json:"before_pass"`
	Conditions []Condition `json:"conditions"`
	Stop       bool        `json:"stop"`
}

// Nested reports a loop run inside another loop's pass (its usage is part
// of that loop's).
func (l Loop) Nested() bool { return l.Shape != l.Path }

// Result is the loop as a run's result reports it (the CLI's summary line
// reads it).
func (l Loop) Result() cogloop.LoopResult {
	r := cogloop.LoopResult{ID: l.ID, Path: l.Path, LoopsCompleted: l.LoopsCompleted, FinalScore: l.FinalScore,
		BestScore: l.BestScore, BestIteration: l.BestIteration, ThresholdMet: l.StopReason == "threshold",
		StopReason: loopnode.StopReason(l.StopReason), Error: l.Error, Usage: l.Usage}
	if r.StopReason == "" {
		r.StopReason = "(not ended)"
	}
	for _, p := range l.Passes {
		r.Iterations = append(r.Iterations, cogloop.IterationResult{Number: p.Number, Score: p.Score,
			ScoreFound: p.ScoreFound, Completed: p.Completed, Usage: p.Usage})
	}
	return r
}

// Pass is one pass of a loop.
type Pass struct {
	Number     int     `json:"number"`
	Score      float64 `json:"score"`
	ScoreFound bool    `json:"score_found"`
	// Completed is false for a pass cut short (its Error says why) and for a
	// pass the record does not finish.
	Completed bool `json:"completed"`
	// Best is the loop's best score after this pass.
	Best       float64     `json:"best"`
	Stop       bool        `json:"stop"`
	Conditions []Condition `json:"conditions"`
	Lessons    Lessons     `json:"lessons"`
	Usage      spend.Usage `json:"usage"`
	// FailedAgents are the ids of the pass's agents that failed.
	FailedAgents []string      `json:"failed_agents,omitempty"`
	Error        string        `json:"error,omitempty"`
	Duration     time.Duration `json:"duration_ns"`
	// Agents are the calls of the pass's agents (not those of a loop nested
	// in it, which is a Loop of its own).
	Agents []Call `json:"agents"`
	// Tools are the tool calls the pass's agents made, in the order they ended.
	Tools []ToolCall `json:"tools,omitempty"`
}

// Failed reports a pass cut short or with a failed agent.
func (p Pass) Failed() bool { return !p.Completed || len(p.FailedAgents) > 0 || p.Error != "" }

// Condition is one stop condition's result after (or before) a pass.
type Condition struct {
	Kind   string `json:"kind"`
	Fired  bool   `json:"fired"`
	Detail string `json:"detail,omitempty"`
}

// Lessons are what cognitive extraction found in a pass.
type Lessons struct {
	Insights     string            `json:"insights,omitempty"`
	Improvements string            `json:"improvements,omitempty"`
	Mistakes     string            `json:"mistakes,omitempty"`
	Other        map[string]string `json:"other,omitempty"`
}

// Empty reports no lesson.
func (l Lessons) Empty() bool {
	return l.Insights == "" && l.Improvements == "" && l.Mistakes == "" && len(l.Other) == 0
}

// Call is one agent's run: its rendered prompt and its reply.
type Call struct {
	Path     string        `json:"path"`
	Agent    string        `json:"agent"`
	Type     string        `json:"type,omitempty"`
	Prompt   string        `json:"prompt,omitempty"`
	Response string        `json:"response,omitempty"`
	Error    string        `json:"error,omitempty"`
	Usage    spend.Usage   `json:"usage"`
	Duration time.Duration `json:"duration_ns"`
}

// ToolCall is one tool call an agent's model asked for (a tool.result event):
// its arguments and result as the run recorded them (scrubbed, and clipped at
// the agent's cap).
type ToolCall struct {
	Path     string        `json:"path"` // the calling agent's
	Agent    string        `json:"agent"`
	Round    int           `json:"round"`
	Tool     string        `json:"tool"`
	ID       string        `json:"id,omitempty"`
	Args     string        `json:"args"`
	Result   string        `json:"result,omitempty"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// pass is pass n, added when the record has not shown it yet.
func (l *Loop) pass(n int) *Pass {
	for i := range l.Passes {
		if l.Passes[i].Number == n {
			return &l.Passes[i]
		}
	}
	l.Passes = append(l.Passes, Pass{Number: n, Conditions: []Condition{}, Agents: []Call{}})
	return &l.Passes[len(l.Passes)-1]
}

// iterationData is the data of a loop.iteration event.
type iterationData struct {
	LoopNumber   int               `json:"loop_number"`
	Completed    bool              `json:"completed"`
	Score        float64           `json:"score"`
	ScoreFound   bool              `json:"score_found"`
	Best         float64           `json:"best"`
	Stop         bool              `json:"stop"`
	Usage        spend.Usage       `json:"usage"`
	Conditions   []Condition       `json:"conditions"`
	FailedAgents []string          `json:"failed_agents"`
	Lessons      map[string]string `json:"lessons"`
}

func (l *Loop) iteration(e event.Event) {
	var d iterationData
	decode(e.Data, &d)
	p := l.pass(d.LoopNumber)
	p.Completed, p.Score, p.ScoreFound, p.Best, p.Stop = d.Completed, d.Score, d.ScoreFound, d.Best, d.Stop
	p.Error, p.Duration, p.Usage, p.FailedAgents = e.Error, e.Duration, d.Usage, d.FailedAgents
	p.Conditions = append(p.Conditions, d.Conditions...)
	for k, text := range d.Lessons {
		switch k {
		case "insights":
			p.Lessons.Insights = text
		case "improvements":
			p.Lessons.Improvements = text
		case "mistakes":
			p.Lessons.Mistakes = text
		default:
			if p.Lessons.Other == nil {
				p.Lessons.Other = map[string]string{}
			}
			p.Lessons.Other[k] = text
		}
	}
	if p.Completed {
		l.LoopsCompleted++
		l.FinalScore = p.Score
		if l.BestIteration == 0 || p.Score > l.BestScore {
			l.BestScore, l.BestIteration = p.Score, p.Number
		}
	}
}

func (l *Loop) end(e event.Event) {
	var d struct {
		StopReason     string      `json:"stop_reason"`
		LoopsCompleted int         `json:"loops_completed"`
		FinalScore     float64     `json:"final_score"`
		BestScore      float64     `json:"best_score"`
		BestIteration  int         `json:"best_iteration"`
		Usage          spend.Usage `json:"usage"`
	}
	decode(e.Data, &d)
	l.Ended, l.Error = true, e.Error
	l.StopReason, l.LoopsCompleted, l.Usage = d.StopReason, d.LoopsCompleted, d.Usage
	l.FinalScore, l.BestScore, l.BestIteration = d.FinalScore, d.BestScore, d.BestIteration
}

// passOf splits an agent path at its last "iteration N" part: the loop's path
// and the pass number; ok is false outside loops.
func passOf(path string) (loop string, pass int, ok bool) {
	parts := strings.Split(path, fault.PathSep)
	for i := len(parts) - 2; i >= 0; i-- {
		if n, found := strings.CutPrefix(parts[i], "iteration "); found {
			if k, err := strconv.Atoi(n); err == nil {
				return strings.Join(parts[:i], fault.PathSep), k, true
			}
		}
	}
	return "", 0, false
}

// readBudget reads the budget of run.start and run.end (which adds whether
// it was exceeded).
func (s *Summary) readBudget(e event.Event) {
	var d struct {
		Budget *Budget `json:"budget"`
	}
	decode(e.Data, &d)
	if d.Budget == nil || (d.Budget.MaxTokens <= 0 && d.Budget.MaxCost <= 0 && !d.Budget.Exceeded) {
		return
	}
	if s.Budget == nil || d.Budget.MaxTokens > 0 || d.Budget.MaxCost > 0 {
		s.Budget = d.Budget
		return
	}
	s.Budget.Exceeded = d.Budget.Exceeded
}

// shape drops the "iteration N" parts of a loop path.
func shape(path string) string {
	parts := strings.Split(path, fault.PathSep)
	out := parts[:0]
	for _, p := range parts {
		if n, found := strings.CutPrefix(p, "iteration "); found {
			if _, err := strconv.Atoi(n); err == nil {
				continue
			}
		}
		out = append(out, p)
	}
	return strings.Join(out, fault.PathSep)
}

// decode reads an event's data into the typed v, the same from a record
// file (numbers are float64) or from a live run (ints): through JSON. Data
// of another shape leaves v's fields zero.
func decode(data map[string]any, v any) {
	b, err := json.Marshal(data)
	if err == nil {
		_ = json.Unmarshal(b, v)
	}
}
