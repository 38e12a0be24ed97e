package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/app/records"
)

// recordedCall is one model call (attempt) as a run record keeps it.
type recordedCall struct {
	agent     string
	request   string // the rendered request, scrubbed, possibly cut
	sha       string // of the whole scrubbed request
	cut       bool
	reply     string
	err       string
	usage     spend.Usage
	toolCalls []map[string]any
}

// modelCalls reads the model.call events of a record, in order.
func modelCalls(rec *records.Record) []recordedCall {
	var out []recordedCall
	for _, e := range rec.Events {
		if e.Kind != event.ModelCall {
			continue
		}
		c := recordedCall{agent: e.Agent, reply: e.Response, err: e.Error}
		c.request, _ = e.Data["request"].(string)
		c.sha, _ = e.Data["request_sha256"].(string)
		c.cut, _ = e.Data["request_cut"].(bool)
		if e.Usage != nil {
			c.usage = *e.Usage
		}
		if tcs, ok := e.Data["tool_calls"].([]any); ok {
			for _, t := range tcs {
				if m, ok := t.(map[string]any); ok {
					c.toolCalls = append(c.toolCalls, m)
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// readRecordedCalls resolves a run named on the command line (an id, a
// prefix, "latest" or a record file) and reads its model calls.
func readRecordedCalls(name, dirFlag string) (string, []recordedCall, error) {
	d, err := recordDir(dirFlag)
	if err != nil {
		return "", nil, err
	}
	rec, err := d.Read(name)
	if err != nil {
		return "", nil, err
	}
	calls := modelCalls(rec)
	if len(calls) == 0 {
		return "", nil, fmt.Errorf("run %s recorded no model calls (a run records them since this version of cogloop; one whose agents call no model has none)", rec.ID)
	}
	for _, c := range calls {
		if c.sha == "" {
			return "", nil, fmt.Errorf("run %s: the model calls of agent %q were recorded without their requests (an older cogloop): run the workflow again to record them", rec.ID, c.agent)
		}
	}
	return rec.ID, calls, nil
}

// replayLog is a recorded run's model calls per agent, in order.
type replayLog struct {
	run   string
	calls map[string][]recordedCall
}

func loadReplay(name string) (*replayLog, error) {
	id, calls, err := readRecordedCalls(name, "")
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	l := &replayLog{run: id, calls: map[string][]recordedCall{}}
	for _, c := range calls {
		l.calls[c.agent] = append(l.calls[c.agent], c)
	}
	return l, nil
}

// source answers one run's calls from the log, each agent's from its first
// recorded call on.
func (l *replayLog) source() *replaySource {
	return &replaySource{log: l, next: map[string]int{}, warned: map[string]bool{}}
}

// replaySource is an [agents.ModelSource] over a recorded run.
type replaySource struct {
	log    *replayLog
	mu     sync.Mutex
	next   map[string]int
	warned map[string]bool
}

// scriptedWarning is the warning, once per agent, for a model call the
// replay did not answer: an agent of type scripted answers from its own
// responses: and ignores the run's models, so --replay cannot check or
// replay its calls. ok is false for every other event.
func (s *replaySource) scriptedWarning(e event.Event) (w event.Event, ok bool) {
	if e.Kind != event.ModelCall || e.Data["provider"] != "scripted" {
		return event.Event{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, served := s.next[e.Agent]; served || s.warned[e.Agent] {
		return event.Event{}, false
	}
	s.warned[e.Agent] = true
	return event.Event{Kind: event.Warning, Node: e.Node, Agent: e.Agent, Time: e.Time,
		Message: fmt.Sprintf("--replay %s: agent %q is of type scripted: it answers from its own responses:, not from the recorded run, so its calls are neither replayed nor checked against the record", s.log.run, e.Agent)}, true
}

var _ agents.ModelSource = (*replaySource)(nil)

func (s *replaySource) ModelFor(agentID string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		return s.generate(ctx, agentID, req)
	}), nil
}

// errReplayDiffers: a call's request is not the recorded one.
var errReplayDiffers = errors.New("the request differs from the recorded run")

func (s *replaySource) generate(ctx context.Context, agent string, req agents.Request) (agents.Reply, error) {
	if err := ctx.Err(); err != nil {
		return agents.Reply{}, err
	}
	s.mu.Lock()
	calls := s.log.calls[agent]
	i := s.next[agent]
	s.next[agent] = i + 1
	s.mu.Unlock()
	if i >= len(calls) {
		return agents.Reply{}, fault.Fatal(fmt.Errorf("replay of run %s: agent %q makes call %d, but the run recorded %d", s.log.run, agent, i+1, len(calls)),
			"the workflow now calls the model more often than when it was recorded: record the run again")
	}
	c := calls[i]
	live := req.Transcript()
	if req.Scrub != nil {
		live = req.Scrub(live) // the record holds the request scrubbed
	}
	sum := sha256.Sum256([]byte(live))
	if hex.EncodeToString(sum[:]) != c.sha && !sameButClock(c, live) {
		old, now := c.request, live
		if c.cut && len(now) > len(old) {
			now = now[:len(old)]
		}
		return agents.Reply{}, fault.Fatal(fmt.Errorf("replay of run %s: call %d of agent %q: %w (record the run again, or undo the change; - recorded, + now):\n%s",
			s.log.run, i+1, agent, errReplayDiffers, textDiff(old, now, 30)), "")
	}
	if c.err != "" {
		// A recorded failure fails again; 503 lets the retry policy take the
		// next recorded attempt, as it did.
		return agents.Reply{}, &retry.CallError{Status: 503, Err: fmt.Errorf("recorded failure: %s", c.err)}
	}
	rep := agents.Reply{Text: c.reply, Usage: c.usage}
	for _, t := range c.toolCalls {
		id, _ := t["id"].(string)
		name, _ := t["name"].(string)
		args, _ := t["args"].(string)
		rep.ToolCalls = append(rep.ToolCalls, agents.ToolCall{ID: id, Name: name, Args: args})
	}
	if req.OnDelta != nil {
		req.OnDelta(rep.Text)
	}
	return rep, nil
}

// wallClock matches the ISO 8601 timestamps a run makes (past_loops'
// timestamp: 2026-11-28T04:59:18.633452): a replay cannot make the same ones.
var wallClock = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)?`)

// MaxReplayCompare bounds the request text compared without its timestamps.
const MaxReplayCompare = 1 << 20

// sameButClock reports whether the live request is the recorded one but for
// its wall-clock timestamps; a cut recording cannot tell.
func sameButClock(c recordedCall, live string) bool {
	if c.cut || len(live) > MaxReplayCompare {
		return false
	}
	return wallClock.ReplaceAllLiteralString(c.request, "T") == wallClock.ReplaceAllLiteralString(live, "T")
}

// textDiff shows how text b differs from a, line by line ("-" recorded, "+"
// now), with a line of context around each change and at most max lines.
func textDiff(a, b string, max int) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// The common head and tail need no table.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	const maxCells = 4 << 20
	var ops []string
	if len(mx)*len(my) > maxCells {
		for _, l := range mx {
			ops = append(ops, "- "+l)
		}
		for _, l := range my {
			ops = append(ops, "+ "+l)
		}
	} else {
		ops = lcsOps(mx, my)
	}
	var out []string
	if pre > 0 {
		out = append(out, "  "+x[pre-1])
	}
	out = append(out, ops...)
	if suf > 0 {
		out = append(out, "  "+x[len(x)-suf])
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("… (%d more lines)", len(out)-max))
	}
	return "    " + strings.Join(out, "\n    ")
}

// lcsOps is the edit script of x into y by longest common subsequence.
func lcsOps(x, y []string) []string {
	n, m := len(x), len(y)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			ops = append(ops, "  "+x[i])
			i, j = i+1, j+1
		case i < n && (j == m || t[i+1][j] >= t[i][j+1]):
			ops = append(ops, "- "+x[i])
			i++
		default:
			ops = append(ops, "+ "+y[j])
			j++
		}
	}
	return ops
}
