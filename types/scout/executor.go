package scout

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
)

// PathExecutor runs the agents named at a dotted path of earlier outputs
// (type path_executor). It is immutable and safe for concurrent Run calls.
//
// YAML keys (OrKa's): path_source (default validated_path), on_agent_failure
// (continue, the default, or abort), input_source (a dotted path whose value
// the agents get as their input instead of the workflow's).
//
// Its response, and its fields, are OrKa's mapping: executed_path, results
// (agent id → that agent's output), status (success, partial) and errors when
// an agent failed. The agents it ran are recorded in previous_outputs after
// it, as a fork's branch agents are.
type PathExecutor struct {
	id          string
	source      string
	inputSource string
	abort       bool
	resolve     func(string) (agents.Step, bool)
	visible     []string
	mayRun      []string
}

var (
	_ agents.Agent     = (*PathExecutor)(nil)
	_ agents.Exposer   = (*PathExecutor)(nil)
	_ agents.MayRunner = (*PathExecutor)(nil)
)

// Decisions of graph-scout.
const (
	CommitNext = "commit_next"
	CommitPath = "commit_path"
	Shortlist  = "shortlist"
	Fallback   = "fallback"
)

// NewPathExecutor builds a path_executor from its definition.
func NewPathExecutor(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	p := &PathExecutor{id: c.String("id", "")}
	c.Ignore("queue", "prompt")
	for _, a := range b.Visible() {
		p.visible = append(p.visible, a.ID)
		if a.ID != p.id && !control[a.Type] {
			p.mayRun = append(p.mayRun, a.ID)
		}
	}
	p.resolve = b.Resolver()
	p.source = strings.TrimSpace(c.String("path_source", "validated_path"))
	p.checkSource(c, "path_source", p.source)
	if c.Has("input_source") {
		p.inputSource = strings.TrimSpace(c.String("input_source", ""))
		p.checkSource(c, "input_source", p.inputSource)
	}
	switch f := c.String("on_agent_failure", "continue"); f {
	case "continue":
	case "abort":
		p.abort = true
	default:
		c.Errorf("on_agent_failure", "on_agent_failure must be continue or abort, not %q", f)
	}
	return p, nil
}

// checkSource reports a dotted path whose first part names no agent.
func (p *PathExecutor) checkSource(c *load.Config, key, src string) {
	first, _, _ := strings.Cut(src, ".")
	if first == "" {
		c.Errorf(key, "%s is empty: give a dotted path into earlier outputs, e.g. graph_scout.target", key)
		return
	}
	for _, id := range p.visible {
		if id == first {
			if id == p.id {
				c.Errorf(key, "%s %q starts at this path_executor itself; name the agent that proposes the path", key, src)
			}
			return
		}
	}
	msg := fmt.Sprintf("%s %q starts with %q, which no agent of this workflow defines", key, src, first)
	if s := load.Closest(first, p.visible); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	c.Errorf(key, "%s", msg)
}

// MayRun lists the agents a path may name: every visible agent but this one
// and those that steer the workflow.
func (p *PathExecutor) MayRun() []string { return append([]string(nil), p.mayRun...) }

// ExposesChildren reports that the agents run are recorded after it.
func (p *PathExecutor) ExposesChildren() bool { return true }

// Run finds the agent list and runs it.
func (p *PathExecutor) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	view := in.Previous.Map()
	f, err := findPath(view, p.source)
	if err != nil {
		return agents.Output{}, fmt.Errorf("%w; earlier outputs: %s", err, strings.Join(in.Previous.IDs(), ", "))
	}
	switch f.decision {
	case "", CommitPath, Shortlist:
	case CommitNext:
		f.ids = f.ids[:1]
	default:
		return agents.Output{}, fmt.Errorf("%s holds the decision %q, which names no path to run (only commit_next, commit_path and shortlist can be executed)", p.where(f), f.decision)
	}
	steps, err := p.steps(in, f)
	if err != nil {
		return agents.Output{}, err
	}
	if len(steps) == 0 {
		return agents.Output{}, fmt.Errorf("%s gives no agent to run (it gave %s)", p.where(f), strings.Join(f.ids, ", "))
	}
	sin := in
	if p.inputSource != "" {
		if v, _, why := navigate(view, p.inputSource); why == "" {
			sin.Value = v
		} else if err := in.Run.Warn(event.Event{Node: in.Path, Agent: p.id, Type: TypePathExecutor,
			Message: fmt.Sprintf("input_source %q: %s; the agents get the workflow input", p.inputSource, why),
			Data:    map[string]any{"code": "input_source_missing"}}); err != nil {
			return agents.Output{}, err
		}
	}
	out, err := agents.Sequence{Steps: steps, StopOnError: p.abort}.Run(ctx, sin)
	if err != nil && (ctx.Err() != nil || fault.Stops(err)) {
		return out, err
	}
	return p.result(steps, out, err)
}

// steps resolves the ids. Unknown ids fail the run, naming them and the
// path they came from; control agents (and this one) are skipped with a
// warning, as OrKa skips them.
func (p *PathExecutor) steps(in agents.Input, f found) ([]agents.Step, error) {
	var unknown, skipped, repeated []string
	steps := make([]agents.Step, 0, len(f.ids))
	seen := make(map[string]bool, len(f.ids))
	for _, id := range f.ids {
		st, ok := p.resolve(id)
		switch {
		case seen[id]:
			repeated = append(repeated, id)
		case !ok:
			unknown = append(unknown, id)
		case id == p.id || control[st.Type]:
			skipped = append(skipped, id)
		default:
			steps = append(steps, st)
		}
		seen[id] = true
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s names %s, which no agent of this workflow defines (defined: %s)",
			p.where(f), quoteAll(unknown), strings.Join(p.visible, ", "))
	}
	if len(skipped) > 0 {
		if err := in.Run.Warn(event.Event{Node: in.Path, Agent: p.id, Type: TypePathExecutor,
			Message: fmt.Sprintf("%s names %s, which steer the workflow rather than do its work; path_executor does not run them", p.where(f), quoteAll(skipped)),
			Data:    map[string]any{"code": "path_control_agent"}}); err != nil {
			return nil, err
		}
	}
	if len(repeated) > 0 {
		if err := in.Run.Warn(event.Event{Node: in.Path, Agent: p.id, Type: TypePathExecutor,
			Message: fmt.Sprintf("%s names %s more than once (a shortlist's candidates can share their first agent); each runs once", p.where(f), quoteAll(repeated)),
			Data:    map[string]any{"code": "path_repeated_agent"}}); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

// result builds OrKa's mapping from the sequence's output. fail is the
// failure that stopped an abort.
func (p *PathExecutor) result(steps []agents.Step, out agents.Output, fail error) (agents.Output, error) {
	executed := make([]any, len(steps))
	for i, s := range steps {
		executed[i] = s.ID
	}
	results := map[string]any{}
	var errs []any
	out.Children.Each(func(id string, o agents.Output) bool {
		results[id] = o.Map()
		if o.Failed() {
			errs = append(errs, fmt.Sprintf("agent %q failed: %s", id, o.Err))
		}
		return true
	})
	status := "success"
	if len(errs) > 0 {
		status = "partial"
	}
	m := map[string]any{"executed_path": executed, "results": results, "status": status}
	if len(errs) > 0 {
		m["errors"] = errs
	}
	fields := make(map[string]any, len(m))
	for k, v := range m {
		fields[k] = v
	}
	res := agents.Output{Response: m, Fields: fields, Usage: out.Usage, Children: out.Children}
	if fail != nil {
		return res, fmt.Errorf("on_agent_failure is abort: %w", fail)
	}
	return res, nil
}

// where names the path_source and, when it differs, the variant that gave f.
func (p *PathExecutor) where(f found) string {
	if f.variant == p.source {
		return fmt.Sprintf("path_source %q", p.source)
	}
	return fmt.Sprintf("path_source %q (found at %s)", p.source, f.variant)
}

func quoteAll(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}
