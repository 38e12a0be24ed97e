package agents

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/internal/yamlbound"
)

// ScriptReply is one scripted answer: a text (with an optional delay and token
// usage) or a failure.
type ScriptReply struct {
	Text  string
	Delay time.Duration
	Usage Usage
	// Err, when not empty, makes the call fail with this message.
	Err string
	// Status gives a failing reply an HTTP status (429, 500, …) so that retry
	// policies treat it as they would a provider's; 0 is a plain error, which the
	// default LLM policy does not retry.
	Status int
	// RetryAfter is the wait a failing reply asks for, like a Retry-After header.
	RetryAfter time.Duration
	// Pos is where the reply was written.
	Pos Pos
}

// Scripted is a [Model] that answers from a fixed list of replies, one per call,
// in order; with cycle it starts again at the end, otherwise a call past the end
// fails with a fatal error ([Fatal]) wrapping [ErrScriptExhausted]. It is safe for concurrent
// use: each call takes the next reply under a mutex (the reply's delay is waited
// outside it).
type Scripted struct {
	agent, source string

	mu      sync.Mutex
	replies []ScriptReply
	cycle   bool
	next    int
}

var _ Model = (*Scripted)(nil)

// NewScripted returns a scripted model for agent; source names where the
// replies come from ("script.yaml", "its responses") in errors.
func NewScripted(agent, source string, replies []ScriptReply, cycle bool) *Scripted {
	return &Scripted{agent: agent, source: source, replies: append([]ScriptReply(nil), replies...), cycle: cycle}
}

// Generate answers with the next reply. A cancelled ctx fails at once without
// taking a reply; a reply's delay is cut short by ctx (timeout or cancellation).
func (m *Scripted) Generate(ctx context.Context, req Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	m.mu.Lock()
	n := len(m.replies)
	if m.next >= n && (!m.cycle || n == 0) {
		m.mu.Unlock()
		return Reply{}, Fatal(fmt.Errorf("agent %q was called more times than it has scripted replies (%d in %s): %w", m.agent, n, m.source, ErrScriptExhausted),
			fmt.Sprintf("add replies for %q to %s, or write {cycle: [...]} to repeat them", m.agent, m.source))
	}
	i := m.next % n
	r := m.replies[i]
	m.next++
	m.mu.Unlock()

	if r.Delay > 0 {
		if err := SleepContext(ctx, r.Delay); err != nil {
			return Reply{}, fmt.Errorf("scripted reply %d of agent %q (delay %s): %w", i+1, m.agent, r.Delay, err)
		}
	}
	if r.Err != "" {
		return Reply{}, &CallError{Status: r.Status, RetryAfter: r.RetryAfter,
			Err: fmt.Errorf("scripted reply %d of agent %q is an error: %s", i+1, m.agent, r.Err)}
	}
	if req.OnDelta != nil {
		// Streams word by word, as a provider would in chunks.
		for _, w := range strings.SplitAfter(r.Text, " ") {
			req.OnDelta(w)
		}
	}
	return Reply{Text: r.Text, Usage: r.Usage}, nil
}

// Calls is the number of calls answered or failed so far (exhausted calls excluded).
func (m *Scripted) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// Reset starts the replies again from the first.
func (m *Scripted) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next = 0
}

// Script is a parsed --script file: agent id → scripted replies. It is a
// [ModelSource]; each agent's replies are consumed across the whole run (one
// per call of that agent), so use a fresh Script, or [Script.Reset], per run.
type Script struct {
	file   string
	models map[string]*Scripted
}

var _ ModelSource = (*Script)(nil)

// MaxScriptNodes caps the YAML nodes of a script, counted before its tree is
// built and again with aliases expanded (the workflow loader's bound).
const MaxScriptNodes = 100_000

// ParseScript reads a script: a YAML mapping from agent id to a list of replies,
// or to {cycle: [...]} for replies that repeat forever. A reply is a string, a
// mapping {text, delay, usage: {prompt_tokens, completion_tokens}}, or
// {error: "message"} (that call fails; status and retry_after make it look like
// an HTTP failure to retry policies). Every problem is reported, with
// file:line:col, in one *[LoadError].
func ParseScript(data []byte, file string) (*Script, error) {
	probs := &Problems{}
	if err := yamlbound.Check(data, MaxScriptNodes); err != nil {
		var over *yamlbound.Over
		errors.As(err, &over)
		probs.Errorf(Pos{File: file, Line: over.Line, Col: 1}, "script has %v", err)
		return nil, probs.Err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := yamlLine.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), "")
		probs.Errorf(yamlErrPos(file, err), "script: %s", msg)
		return nil, probs.Err()
	}
	if yamlbound.ExpandedSize(&doc, MaxScriptNodes) > MaxScriptNodes {
		probs.Errorf(Pos{File: file}, "script: YAML aliases expand to more than %d nodes; this looks like an alias bomb — use fewer nested aliases", MaxScriptNodes)
		return nil, probs.Err()
	}
	var root *yaml.Node
	if doc.Kind != 0 {
		root = Resolve(&doc)
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		probs.Errorf(Pos{File: file}, "script is empty: write a mapping from agent id to a list of replies")
		return nil, probs.Err()
	}
	c := NewConfig(file, root, "script", probs)
	s := &Script{file: file, models: map[string]*Scripted{}}
	for _, id := range c.Keys() {
		replies, cycle := ReadReplies(file, c.Node(id), fmt.Sprintf("script: agent %q", id), probs)
		s.models[id] = NewScripted(id, file, replies, cycle)
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

func yamlErrPos(file string, err error) Pos {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return Pos{File: file, Line: n, Col: 1}
	}
	return Pos{File: file}
}

// ModelFor returns the scripted model of agentID; an agent the script does not
// mention is an error naming the agent and the script.
func (s *Script) ModelFor(agentID string) (Model, error) {
	if m, ok := s.models[agentID]; ok {
		return m, nil
	}
	return nil, Fatal(fmt.Errorf("script %s has no replies for agent %q (it has replies for: %s)", s.file, agentID, strings.Join(s.Agents(), ", ")),
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
}

// ReadReplies reads a reply list — a YAML list, or {cycle: [...]} — from node,
// recording problems with positions on probs; what names the list in messages.
// The scripted agent type uses it for its responses key.
func ReadReplies(file string, node *yaml.Node, what string, probs *Problems) (replies []ScriptReply, cycle bool) {
	n := Resolve(node)
	pos := func(n *yaml.Node) Pos { return Pos{File: file, Line: n.Line, Col: n.Column} }
	if n == nil {
		probs.Errorf(Pos{File: file}, "%s: no replies", what)
		return nil, false
	}
	list := n
	if n.Kind == yaml.MappingNode {
		c := NewConfig(file, n, what, probs)
		list = c.Node("cycle")
		c.Done()
		if list == nil {
			probs.Errorf(pos(n), "%s: a mapping of replies needs the key cycle: [...]", what)
			return nil, false
		}
		cycle = true
	}
	if list.Kind != yaml.SequenceNode {
		probs.Errorf(pos(list), "%s: replies must be a list or {cycle: [...]}, not %s", what, KindName(list))
		return nil, false
	}
	if cycle && len(list.Content) == 0 {
		probs.Errorf(pos(list), "%s: cycle needs at least one reply", what)
	}
	for i, it := range list.Content {
		if r, ok := readReply(file, Resolve(it), fmt.Sprintf("%s: reply %d", what, i+1), probs); ok {
			replies = append(replies, r)
		}
	}
	return replies, cycle
}

func readReply(file string, n *yaml.Node, what string, probs *Problems) (ScriptReply, bool) {
	p := Pos{File: file, Line: n.Line, Col: n.Column}
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag != "!!null":
		return ScriptReply{Text: n.Value, Pos: p}, true
	case n.Kind != yaml.MappingNode:
		probs.Errorf(p, "%s must be text, {text, delay, usage} or {error}, not %s", what, KindName(n))
		return ScriptReply{}, false
	}
	before := len(probs.Errors())
	c := NewConfig(file, n, what, probs)
	r := ScriptReply{Pos: p}
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
	switch {
	case hasText && hasErr:
		c.Errorf("error", "a reply has text or error, not both")
	case !hasText && !hasErr:
		c.Errorf("", "a reply needs text or error")
	case hasErr && r.Err == "":
		c.Errorf("error", "error must be a non-empty message")
	case hasText && (r.Status != 0 || r.RetryAfter != 0):
		c.Errorf("status", "status and retry_after belong to error replies")
	}
	c.Done()
	return r, len(probs.Errors()) == before
}

const math32 = 1<<31 - 1
