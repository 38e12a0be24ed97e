package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/yamlbound"
)

// ErrExhausted means a scripted agent was called more times than it has replies.
// It is a permanent [retry.CallError], so no retry policy retries it.
var ErrExhausted = retry.Permanent(errors.New("scripted replies exhausted"))

// Reply is one scripted answer: a text (with an optional delay and token
// usage) or a failure.
type Reply struct {
	Text  string
	Delay time.Duration
	Usage spend.Usage
	// Err, when not empty, makes the call fail with this message.
	Err string
	// Status gives a failing reply an HTTP status (429, 500, …) so that retry
	// policies treat it as they would a provider's; 0 is a plain error, which the
	// default LLM policy does not retry.
	Status int
	// RetryAfter is the wait a failing reply asks for, like a Retry-After header.
	RetryAfter time.Duration
	// ToolCalls are the tools the reply asks for (tool_calls: [{tool, args}]);
	// the agent runs them and calls again with their results.
	ToolCalls []agents.ToolCall
	// Pos is where the reply was written.
	Pos load.Pos
}

// Model is a [agents.Model] that answers from a fixed list of replies, one per call,
// in order; with cycle it starts again at the end, otherwise a call past the end
// fails with a fatal error ([fault.Fatal]) wrapping [ErrExhausted]. It is safe for concurrent
// use: each call takes the next reply under a mutex (the reply's delay is waited
// outside it).
type Model struct {
	agent, source string

	mu      sync.Mutex
	replies []Reply
	cycle   bool
	next    int
}

var _ agents.Model = (*Model)(nil)

// New returns a scripted model for agent; source names where the
// replies come from ("script.yaml", "its responses") in errors.
func New(agent, source string, replies []Reply, cycle bool) *Model {
	return &Model{agent: agent, source: source, replies: append([]Reply(nil), replies...), cycle: cycle}
}

// Generate answers with the next reply. A cancelled ctx fails at once without
// taking a reply; a reply's delay is cut short by ctx (timeout or cancellation).
func (m *Model) Generate(ctx context.Context, req agents.Request) (agents.Reply, error) {
	if err := ctx.Err(); err != nil {
		return agents.Reply{}, err
	}
	m.mu.Lock()
	n := len(m.replies)
	if m.next >= n && (!m.cycle || n == 0) {
		m.mu.Unlock()
		return agents.Reply{}, fault.Fatal(fmt.Errorf("agent %q was called more times than it has scripted replies (%d in %s): %w", m.agent, n, m.source, ErrExhausted),
			fmt.Sprintf("add replies for %q to %s, or write {cycle: [...]} to repeat them", m.agent, m.source))
	}
	i := m.next % n
	r := m.replies[i]
	m.next++
	m.mu.Unlock()

	if r.Delay > 0 {
		if err := retry.Sleep(ctx, r.Delay); err != nil {
			return agents.Reply{}, fmt.Errorf("scripted reply %d of agent %q (delay %s): %w", i+1, m.agent, r.Delay, err)
		}
	}
	if r.Err != "" {
		return agents.Reply{}, &retry.CallError{Status: r.Status, RetryAfter: r.RetryAfter,
			Err: fmt.Errorf("scripted reply %d of agent %q is an error: %s", i+1, m.agent, r.Err)}
	}
	if req.OnDelta != nil {
		// Streams word by word, as a provider would in chunks.
		for _, w := range strings.SplitAfter(r.Text, " ") {
			req.OnDelta(w)
		}
	}
	return agents.Reply{Text: r.Text, Usage: r.Usage, ToolCalls: r.ToolCalls}, nil
}

// Calls is the number of calls answered or failed so far (exhausted calls excluded).
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// Reset starts the replies again from the first.
func (m *Model) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = 0
}

// Script is a parsed --script file: agent id → scripted replies. It is a
// [agents.ModelSource]; each agent's replies are consumed across the whole run (one
// per call of that agent), so use a fresh Script, or [Script.Reset], per run.
type Script struct {
	file   string
	models map[string]*Model
	// servers are the MCP servers it stands in for (mcp:NAME keys): tool
	// name → its replies.
	servers map[string]map[string]*Model
}

var _ agents.ModelSource = (*Script)(nil)

// MaxNodes caps the YAML nodes of a script, counted before its tree is
// built and again with aliases expanded (the workflow loader's bound).
const MaxNodes = 100_000

// Parse reads a script: a YAML mapping from agent id to a list of replies,
// or to {cycle: [...]} for replies that repeat forever. A reply is a string, a
// mapping {text, delay, usage: {prompt_tokens, completion_tokens}},
// {tool_calls: [{tool, args}]} (the model asks for tools; args is a mapping,
// or JSON text sent as is), or {error: "message"} (that call fails; status and retry_after make it look like
// an HTTP failure to retry policies). Every problem is reported, with
// file:line:col, in one *[load.Error].
func Parse(data []byte, file string) (*Script, error) {
	probs := &load.Problems{}
	if err := yamlbound.Check(data, MaxNodes); err != nil {
		var over *yamlbound.Over
		errors.As(err, &over)
		probs.Errorf(load.Pos{File: file, Line: over.Line, Col: 1}, "script has %v", err)
		return nil, probs.Err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p := load.YAMLProblem(file, err)
		probs.Errorf(p.Pos, "script: %s", p.Msg)
		return nil, probs.Err()
	}
	if yamlbound.ExpandedSize(&doc, MaxNodes) > MaxNodes {
		probs.Errorf(load.Pos{File: file}, "script: YAML aliases expand to more than %d nodes; this looks like an alias bomb — use fewer nested aliases", MaxNodes)
		return nil, probs.Err()
	}
	var root *yaml.Node
	if doc.Kind != 0 {
		root = load.Resolve(&doc)
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		probs.Errorf(load.Pos{File: file}, "script is empty: write a mapping from agent id to a list of replies")
		return nil, probs.Err()
	}
	c := load.NewConfig(file, root, "script", probs)
	s := &Script{file: file, models: map[string]*Model{}}
	for _, id := range c.Keys() {
		if server, ok := strings.CutPrefix(id, ServerPrefix); ok {
			s.readServer(c, id, server, probs)
			continue
		}
		replies, cycle := ReadReplies(file, c.Node(id), fmt.Sprintf("script: agent %q", id), probs)
		s.models[id] = New(id, file, replies, cycle)
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// ModelFor returns the scripted model of agentID; an agent the script does not
// mention is an error naming the agent and the script.
func (s *Script) ModelFor(agentID string) (agents.Model, error) {
	if m, ok := s.models[agentID]; ok {
		return m, nil
	}
	return nil, fault.Fatal(fmt.Errorf("script %s has no replies for agent %q (it has replies for: %s)", s.file, agentID, strings.Join(s.Agents(), ", ")),
		fmt.Sprintf("add %s: [...] to %s", agentID, s.file))
}

// Agents lists the agent ids the script answers for, sorted.
func (s *Script) Agents() []string {
	out := make([]string, 0, len(s.models))
	for id := range s.models {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Reset starts every agent's replies again from the first.
func (s *Script) Reset() {
	for _, m := range s.models {
		m.Reset()
	}
	for _, tools := range s.servers {
		for _, m := range tools {
			m.Reset()
		}
	}
}

// ReadReplies reads a reply list — a YAML list, or {cycle: [...]} — from node,
// recording problems with positions on probs; what names the list in messages.
// The scripted agent type uses it for its responses key.
func ReadReplies(file string, node *yaml.Node, what string, probs *load.Problems) (replies []Reply, cycle bool) {
	n := load.Resolve(node)
	pos := func(n *yaml.Node) load.Pos { return load.Pos{File: file, Line: n.Line, Col: n.Column} }
	if n == nil {
		probs.Errorf(load.Pos{File: file}, "%s: no replies", what)
		return nil, false
	}
	list := n
	if n.Kind == yaml.MappingNode {
		c := load.NewConfig(file, n, what, probs)
		list = c.Node("cycle")
		c.Done()
		if list == nil {
			probs.Errorf(pos(n), "%s: a mapping of replies needs the key cycle: [...]", what)
			return nil, false
		}
		cycle = true
	}
	if list.Kind != yaml.SequenceNode {
		probs.Errorf(pos(list), "%s: replies must be a list or {cycle: [...]}, not %s", what, load.KindName(list))
		return nil, false
	}
	if cycle && len(list.Content) == 0 {
		probs.Errorf(pos(list), "%s: cycle needs at least one reply", what)
	}
	for i, it := range list.Content {
		if r, ok := readReply(file, load.Resolve(it), fmt.Sprintf("%s: reply %d", what, i+1), probs); ok {
			replies = append(replies, r)
		}
	}
	return replies, cycle
}

func readReply(file string, n *yaml.Node, what string, probs *load.Problems) (Reply, bool) {
	p := load.Pos{File: file, Line: n.Line, Col: n.Column}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		return Reply{Text: n.Value, Pos: p}, true
	case n.Kind != yaml.MappingNode:
		probs.Errorf(p, "%s must be text, {text, delay, usage} or {error}, not %s", what, load.KindName(n))
		return Reply{}, false
	}
	before := len(probs.Errors())
	c := load.NewConfig(file, n, what, probs)
	r := Reply{Pos: p}
	hasText, hasErr := c.Has("text"), c.Has("error")
	r.Text = c.String("text", "")
	r.Err = c.String("error", "")
	r.Delay = c.Duration("delay", 0)
	if u := c.Map("usage"); u != nil {
		r.Usage.PromptTokens = u.Int("prompt_tokens", 0, 0, math32)
		r.Usage.CompletionTokens = u.Int("completion_tokens", 0, 0, math32)
		u.Done()
	}
	r.Status = c.Int("status", 0, 0, 599)
	r.RetryAfter = c.Duration("retry_after", 0)
	hasCalls := c.Has("tool_calls")
	r.ToolCalls = readToolCalls(file, c.Node("tool_calls"), what, probs)
	checkReply(c, r, hasText, hasErr, hasCalls)
	c.Done()
	return r, len(probs.Errors()) == before
}

// checkReply reports a reply r of c whose keys contradict each other
// (has*: text, error and tool_calls are given).
func checkReply(c *load.Config, r Reply, hasText, hasErr, hasCalls bool) {
	switch {
	case hasText && hasErr:
		c.Errorf("error", "a reply has text or error, not both")
	case hasCalls && hasErr:
		c.Errorf("error", "a reply has tool_calls or error, not both")
	case !hasText && !hasErr && !hasCalls:
		c.Errorf("", "a reply needs text, tool_calls or error")
	case hasErr && r.Err == "":
		c.Errorf("error", "error must be a non-empty message")
	case hasText && (r.Status != 0 || r.RetryAfter != 0):
		c.Errorf("status", "status and retry_after belong to error replies")
	}
}

const math32 = 1<<31 - 1

// readToolCalls reads tool_calls: [{tool, args, id}] of a reply. args is a
// mapping (sent as its JSON) or text (sent as is, so a script can send
// arguments that are not JSON); an empty id is
// filled in by the calling agent (call_<round>_<n>).
func readToolCalls(file string, n *yaml.Node, what string, probs *load.Problems) []agents.ToolCall {
	n = load.Resolve(n)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		probs.Errorf(load.Pos{File: file, Line: n.Line, Col: n.Column}, "%s: tool_calls must be a non-empty list of {tool, args}", what)
		return nil
	}
	out := make([]agents.ToolCall, 0, len(n.Content))
	for i, it := range n.Content {
		it = load.Resolve(it)
		cw := fmt.Sprintf("%s: tool call %d", what, i+1)
		if it.Kind != yaml.MappingNode {
			probs.Errorf(load.Pos{File: file, Line: it.Line, Col: it.Column}, "%s must be {tool, args}, not %s", cw, load.KindName(it))
			continue
		}
		c := load.NewConfig(file, it, cw, probs)
		tc := agents.ToolCall{Name: c.String("tool", ""), ID: c.String("id", "")}
		if tc.Name == "" {
			c.Errorf("", "a tool call needs tool: the name of the tool")
		}
		tc.Args = "{}"
		if a := load.Resolve(c.Node("args")); a != nil {
			switch {
			case a.Kind == yaml.ScalarNode && a.Tag == "!!str":
				tc.Args = a.Value
			case a.Kind == yaml.MappingNode:
				var v any
				if err := a.Decode(&v); err != nil {
					c.Errorf("args", "args: %v", err)
				} else if b, err := json.Marshal(v); err != nil {
					c.Errorf("args", "args cannot be written as JSON: %v", err)
				} else {
					tc.Args = string(b)
				}
			default:
				c.Errorf("args", "args must be a mapping (or JSON text), not %s", load.KindName(a))
			}
		}
		c.Done()
		out = append(out, tc)
	}
	return out
}

// Calls are how many calls each agent has made of its replies so far (the
// agents that made none are left out): a run that stops to wait for a person
// keeps them, so the run continued in another process goes on with the next
// replies ([Script.Skip]).
func (s *Script) Calls() map[string]int {
	out := map[string]int{}
	for id, m := range s.models {
		if n := m.Calls(); n > 0 {
			out[id] = n
		}
	}
	return out
}

// Skip makes each agent of calls go on after the replies its count says were
// made already (by an earlier process of the same run); agents the script
// does not answer for are ignored.
func (s *Script) Skip(calls map[string]int) {
	for id, n := range calls {
		if m, ok := s.models[id]; ok && n > 0 {
			m.mu.Lock()
			m.next = n
			m.mu.Unlock()
		}
	}
}
