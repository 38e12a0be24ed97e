package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/agents/spend"
)

// defaultMaxToolRounds bounds the model ↔ tools round trips of one call when
// the agent sets no max_tool_rounds.
const defaultMaxToolRounds = 10

// maxParallelTools bounds the calls of one round that run at once.
const maxParallelTools = 4

// Tool choices (tool_choice:); any other value names the one tool to call.
const (
	toolChoiceAuto     = "auto"
	toolChoiceRequired = "required"
	toolChoiceNone     = "none"
)

// toolRecord is one tool call of an agent call, as its output lists it
// (tool_calls: [{round, id, tool, args, result, error, duration}]).
type toolRecord struct {
	Round    int
	ID       string
	Tool     string
	Args     string // as the model sent them, scrubbed
	Result   string // what went back to the model, clipped and scrubbed ("" on error)
	Error    string // the tool error the model was told
	Duration time.Duration
	usage    spend.Usage
}

// Map is r in the shape templates and JSON see.
func (r toolRecord) Map() map[string]any {
	m := map[string]any{"round": r.Round, "id": r.ID, "tool": r.Tool, "args": r.Args,
		"result": r.Result, "duration": math.Round(r.Duration.Seconds()*1000) / 1000}
	if r.Error != "" {
		m["error"] = r.Error
	} else {
		m["error"] = nil
	}
	return m
}

// tool finds the tool a model called by name: the one place a name becomes a
// tool (MCP's server.tool names plug in here).
func (a *Agent) tool(name string) *agents.Tool { return toolIn(a.Tools, name) }

func toolIn(tools []*agents.Tool, name string) *agents.Tool {
	for _, t := range tools {
		if t.Spec.Name == name {
			return t
		}
	}
	return nil
}

// Refs lists the agent's tools ([agents.Referrer]): they run inside its calls,
// so an orchestrator does not also queue them.
func (a *Agent) Refs() []string {
	ids := make([]string, len(a.Tools))
	for i, t := range a.Tools {
		ids[i] = t.Spec.Name
	}
	return ids
}

func toolNames(tools []*agents.Tool) string {
	if len(tools) == 0 {
		return "none are offered"
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Spec.Name
	}
	return "the tools are " + strings.Join(names, ", ")
}

// specs is what the model is offered in round (tool_choice applies to the
// first round only, so that required or a named tool cannot force a call in
// every round; later rounds are auto).
func (a *Agent) specs(tools []*agents.Tool, round int) ([]agents.ToolSpec, string) {
	if len(tools) == 0 || a.ToolChoice == toolChoiceNone {
		return nil, ""
	}
	out := make([]agents.ToolSpec, len(tools))
	for i, t := range tools {
		out[i] = t.Spec
	}
	choice := a.ToolChoice
	if round > 1 {
		choice = toolChoiceAuto
	}
	return out, choice
}

// runRound runs the calls of one round, at most maxParallelTools at once, and
// returns their records in the order the model asked for them. A fatal
// failure of a tool (or the end of ctx) stops the whole agent call.
func (a *Agent) runRound(ctx context.Context, in agents.Input, tools []*agents.Tool, round int, calls []agents.ToolCall, keys []secrets.Secret, rejected map[string]string) ([]toolRecord, error) {
	recs := make([]toolRecord, len(calls))
	errs := make([]error, len(calls))
	if len(calls) == 1 {
		recs[0], errs[0] = a.runTool(ctx, in, tools, round, calls[0], keys, rejected)
		return recs, errs[0]
	}
	sem := make(chan struct{}, maxParallelTools)
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			recs[i], errs[i] = a.runTool(ctx, in, tools, round, c, keys, rejected)
		}()
	}
	wg.Wait()
	return recs, errors.Join(errs...)
}

// runTool runs one call: the tool is looked up, its arguments checked, the
// tool agent run as a step under the calling agent's path with the arguments
// as args. What goes wrong on the model's side (an unknown tool, bad
// arguments, a failing tool) is the record's Error, which the model is told;
// only a fatal failure or the end of ctx is returned.
func (a *Agent) runTool(ctx context.Context, in agents.Input, tools []*agents.Tool, round int, c agents.ToolCall, keys []secrets.Secret, rejected map[string]string) (toolRecord, error) {
	args, _ := a.clip(in.Run.Scrub(c.Args, keys...), "arguments of tool call "+strconv.Quote(c.Name))
	rec := toolRecord{Round: round, ID: c.ID, Tool: c.Name, Args: args}
	data := func() map[string]any {
		return map[string]any{"round": round, "tool": c.Name, "id": c.ID, "args": rec.Args}
	}
	if in.Run.Wanted(event.ToolCall) {
		in.Run.Emit(event.Event{Kind: event.ToolCall, Node: in.Path, Agent: a.ID, Data: data()})
	}
	began := time.Now()
	var stop error
	if why, ok := rejected[c.ID]; ok {
		rec.Error = why
	} else if t := toolIn(tools, c.Name); t == nil {
		rec.Error = fmt.Sprintf("there is no tool %q (%s)", c.Name, toolNames(tools))
	} else {
		stop = a.call(ctx, in, t, c, round, keys, &rec)
	}
	rec.Error = in.Run.Scrub(rec.Error, keys...)
	rec.Duration = time.Since(began)
	if in.Run.Wanted(event.ToolResult) {
		e := event.Event{Kind: event.ToolResult, Node: in.Path, Agent: a.ID, Duration: rec.Duration,
			Response: rec.Result, Error: rec.Error, Data: data()}
		in.Run.Emit(e)
	}
	return rec, stop
}

// call checks a call's arguments and runs its tool, filling in rec; only a
// fatal failure or the end of ctx is returned.
func (a *Agent) call(ctx context.Context, in agents.Input, t *agents.Tool, c agents.ToolCall, round int, keys []secrets.Secret, rec *toolRecord) error {
	args, err := t.Check(c.Args)
	if err != nil {
		rec.Error = err.Error()
		return nil
	}
	tin := in
	tin.Vars = make(map[string]any, len(in.Vars)+1)
	for k, v := range in.Vars {
		tin.Vars[k] = v
	}
	tin.Vars["args"] = args
	out, err := agents.RunStep(ctx, agents.Step{ID: t.Spec.Name, Type: t.Type, Agent: t.Agent}, tin)
	rec.usage = out.Usage
	switch {
	case err != nil:
		rec.Error = err.Error()
		return fmt.Errorf("tool %q (round %d): %w", c.Name, round, err)
	case out.Failed():
		rec.Error = out.Err
	default:
		var cut string
		rec.Result, cut = a.clip(in.Run.Scrub(resultText(out), keys...), "result of tool "+strconv.Quote(c.Name))
		if cut != "" {
			return in.Run.Warn(event.Event{Node: in.Path, Agent: a.ID, Message: cut,
				Data: map[string]any{"code": "tool_result_cut", "tool": c.Name, "round": round}})
		}
	}
	return nil
}

// resultText is what a tool's output tells the model: its response as text
// when that is all it has (an LLM agent's confidence and reasoning aside);
// otherwise one JSON object of the response and the fields (a command's
// exit_code, stdout and stderr), the response left out when a field repeats it.
func resultText(out agents.Output) string {
	m := make(map[string]any, len(out.Fields)+1)
	repeated := false
	for k, v := range out.Fields {
		if !quietFields[k] {
			m[k] = v
			if s, ok := v.(string); ok && s == out.Response {
				repeated = true
			}
		}
	}
	if len(m) == 0 {
		if s, ok := out.Response.(string); ok {
			return s
		}
	}
	if !repeated {
		m["response"] = out.Response
	}
	if b, err := json.Marshal(m); err == nil {
		return string(b)
	}
	return agents.Text(out.Response)
}

// quietFields are output fields a model gains nothing from in a tool result.
var quietFields = map[string]bool{"confidence": true, "internal_reasoning": true, "tool_calls": true,
	"formatted_prompt": true, "prompt": true, "raw_llm_output": true, "_metrics": true}

// clip cuts s to the agent's max_reply_bytes (on a rune boundary): tool
// results and arguments are untrusted input and get the bound the agent's
// model replies get. A cut text ends with a note saying so, which clip also
// returns (for a warning); "" when s fits.
func (a *Agent) clip(s, what string) (string, string) {
	limit := replyLimit(a.MaxReplyBytes)
	if int64(len(s)) <= limit {
		return s, ""
	}
	cut := int(limit)
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	note := fmt.Sprintf("the %s was %d bytes, over max_reply_bytes (%s) of agent %q; only the first %d bytes are used: "+
		"raise max_reply_bytes on the agent (or the orchestrator) if results this long are expected",
		what, len(s), byteSize(limit), a.ID, cut)
	return s[:cut] + "\n[cut: " + note + "]", note
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// messages are the turns one round adds: the model's reply with its calls,
// then one tool message per call (its result, or "error: …").
func roundMessages(reply agents.Reply, calls []agents.ToolCall, recs []toolRecord) []agents.Message {
	out := make([]agents.Message, 0, len(recs)+1)
	out = append(out, agents.Message{Role: "assistant", Text: reply.Text, ToolCalls: calls})
	for _, r := range recs {
		text := r.Result
		if r.Error != "" {
			text = "error: " + r.Error
		}
		out = append(out, agents.Message{Role: "tool", ToolCallID: r.ID, Name: r.Tool, Text: text})
	}
	return out
}

// callIDs gives every call an id (some servers send none), unique in the call.
func callIDs(round int, calls []agents.ToolCall) []agents.ToolCall {
	out := append([]agents.ToolCall(nil), calls...)
	for i := range out {
		if out[i].ID == "" {
			out[i].ID = fmt.Sprintf("call_%d_%d", round, i+1)
		}
	}
	return out
}

// tooManyRounds is the failure of a call whose model still asks for tools
// after max_tool_rounds rounds.
func (a *Agent) tooManyRounds(rounds int, last []agents.ToolCall) error {
	name := ""
	if len(last) > 0 {
		name = last[len(last)-1].Name
	}
	return fmt.Errorf("agent %q: the model still asked for tools after %d rounds (max_tool_rounds %d); the last tool it asked for was %q: raise max_tool_rounds, or tell the model in the prompt when to stop calling tools",
		a.ID, rounds, a.maxRounds(), name)
}

func (a *Agent) maxRounds() int {
	if a.MaxToolRounds > 0 {
		return a.MaxToolRounds
	}
	return defaultMaxToolRounds
}

// expandTools replaces the placeholders of ts by the tools they stand for in
// the run of ctx; ts itself is returned when it has none.
func expandTools(ctx context.Context, ts []*agents.Tool) ([]*agents.Tool, error) {
	n := 0
	for _, t := range ts {
		if t.Expand != nil {
			n++
		}
	}
	if n == 0 {
		return ts, nil
	}
	out := make([]*agents.Tool, 0, len(ts))
	for _, t := range ts {
		if t.Expand == nil {
			out = append(out, t)
			continue
		}
		more, err := t.Expand(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}
