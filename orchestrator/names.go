package orchestrator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
	"go.yaml.in/yaml/v3"
)

// Name checks of templates, once the whole file is built (the order of every
// queue is known then). Each template is checked where its agent runs:
//
//   - calls of undefined functions, filters and tests are errors;
//   - a variable the template does not bind is a warning unless every render
//     binds it (input, previous_outputs, the helpers) or an enclosing loop
//     does (loop_number, past_loops_metadata, score, loop_index, …, its
//     input_mappings targets): see [childVarser];
//   - previous_outputs.<id> (and ['id'], .get('id'), get_agent_response('id'),
//     safe_get_response('id', …), get_loop_output('id')) is a warning unless
//     agent <id> can have run before, in the same workflow run: an agent
//     earlier in the same queue, the agents a fork or router earlier in the
//     queue runs (and theirs), and for an agent a fork, router or failover
//     runs, what that agent sees plus its other children. Each pass of a
//     loop runs its internal workflow afresh, so inside a loop an agent sees
//     only that pass's earlier agents: later ones (their last pass is in
//     past_loops) and the enclosing workflow's agents (input.previous_outputs)
//     are never in previous_outputs there. An agent that runs in several
//     places is checked against all of them together.
//
// Names guarded in the template (x is defined, x | default(…)) are not
// reported. Warnings become errors under strict: true.

// tmplUse is one template the builder parsed, with where it came from.
type tmplUse struct {
	t         *prompt.Template
	node      *yaml.Node
	file      string
	what, key string
	d         *def // the agent being built when it was parsed
}

// childVarser is an agent that binds template variables for the agents it
// runs: a loop binds loop_number, past_loops_metadata, score, loop_index, …
// and its input_mappings targets for the agents of its internal workflow.
type childVarser interface {
	ChildVars() []string
}

// ownVarser is an agent that binds variables for its own templates (a memory
// writer's timestamp and session_id).
type ownVarser interface {
	OwnVars() []string
}

// templateScoper is an agent that renders some of its own templates with
// variables other than an agent's (a loop's past_loops_metadata).
type templateScoper interface {
	TemplateScope(t *prompt.Template) (prompt.Scope, bool)
}

func (b *builder) noteTemplate(c *load.Config, key string, n *yaml.Node, t *prompt.Template) {
	b.tmpls = append(b.tmpls, tmplUse{t: t, node: n, file: c.File(), what: c.What(), key: key, d: b.cur})
}

// checkTemplates reports the undefined names of every template of the file.
func (b *builder) checkTemplates() {
	if len(b.tmpls) == 0 {
		return
	}
	r := b.runs()
	for _, u := range b.tmpls {
		scope := r.scopeOf(u)
		for _, f := range prompt.Check(u.t.Names(), scope) {
			pos := b.templatePos(u.file, u.node, f.Line, f.Col)
			if f.Error {
				b.probs.Errorf(pos, "%s: %s template: %s", u.what, u.key, f.Msg)
			} else {
				b.probs.Warnf(pos, "%s: %s template: %s", u.what, u.key, f.Msg)
			}
		}
	}
}

// site is one place an agent runs: position i of the queue of workflow s, or
// as a child of agent by (a fork's branch, a router's route, a failover's
// alternative).
type site struct {
	s  *scope
	i  int
	by *def
}

// placement is where a template renders: the workflow it runs in and the ids
// previous_outputs can hold there.
type placement struct {
	s   *scope
	ids []string
}

type runIndex struct {
	sites map[*def][]site
	// before holds, per workflow, the ids its queue runs in order (agents
	// run by id included) and where each queue position starts in them:
	// position i sees ids[:starts[i]].
	before map[*scope]*prefix
}

type prefix struct {
	ids    []string
	starts []int
}

// prefixOf indexes s's queue once.
func (r *runIndex) prefixOf(s *scope) *prefix {
	if p, ok := r.before[s]; ok {
		return p
	}
	p := &prefix{}
	seen := map[string]bool{}
	var add func(sc *scope, id string, depth int)
	add = func(sc *scope, id string, depth int) {
		if seen[id] || depth > 32 {
			return
		}
		seen[id] = true
		p.ids = append(p.ids, id)
		d := sc.lookup(id)
		for _, c := range refsOf(d) {
			add(d.home, c, depth+1)
		}
	}
	for _, id := range s.wf.Queue() {
		p.starts = append(p.starts, len(p.ids))
		add(s, id, 0)
	}
	r.before[s] = p
	return p
}

// runs finds every place each agent runs.
func (b *builder) runs() *runIndex {
	r := &runIndex{sites: map[*def][]site{}, before: map[*scope]*prefix{}}
	seen := map[*def]bool{}
	children := func(d *def) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		if d.runBy != nil {
			r.sites[d] = append(r.sites[d], site{by: d.runBy})
		}
		for _, id := range refsOf(d) {
			if c := d.home.lookup(id); c != nil {
				r.sites[c] = append(r.sites[c], site{by: d})
			}
		}
	}
	for _, s := range b.scopes {
		if s.wf == nil {
			continue
		}
		for i, id := range s.wf.Queue() {
			if d := s.lookup(id); d != nil {
				r.sites[d] = append(r.sites[d], site{s: s, i: i})
			}
		}
		for _, d := range s.order {
			children(d)
		}
	}
	for _, u := range b.tmpls {
		children(u.d) // inline definitions are in no agents list
		for d := u.d; d != nil && d.runBy != nil; d = d.runBy {
			children(d.runBy)
		}
	}
	return r
}

// refsOf lists the agents d runs by id (a fork's branches, a router's
// routes): those its factory asked the builder for, and those it lists as an
// [agents.Referrer] or may run as an [agents.MayRunner].
func refsOf(d *def) []string {
	if d == nil || d.home == nil {
		return nil
	}
	refs := d.refs
	var more []string
	if rf, ok := agents.Unwrap(d.agent).(agents.Referrer); ok {
		more = rf.Refs()
	}
	if mr, ok := agents.Unwrap(d.agent).(agents.MayRunner); ok {
		more = append(slices.Clip(more), mr.MayRun()...)
	}
	for _, id := range more {
		if !slices.Contains(refs, id) {
			refs = append(slices.Clip(refs), id)
		}
	}
	return refs
}

// placements lists where d runs, with what previous_outputs holds there.
func (r *runIndex) placements(d *def, depth int) []placement {
	if depth > 32 {
		return nil
	}
	var out []placement
	for _, st := range r.sites[d] {
		if st.s != nil {
			p := r.prefixOf(st.s)
			out = append(out, placement{s: st.s, ids: p.ids[:p.starts[st.i]:p.starts[st.i]]})
			continue
		}
		for _, p := range r.placements(st.by, depth+1) {
			ids := append(slices.Clip(p.ids), st.by.id)
			for _, id := range refsOf(st.by) {
				ids = appendRun(ids, st.by.home, id, 0)
			}
			out = append(out, placement{s: p.s, ids: ids})
		}
	}
	return out
}

// appendRun adds id and every agent it runs by id, transitively.
func appendRun(ids []string, s *scope, id string, depth int) []string {
	if slices.Contains(ids, id) || depth > 32 {
		return ids
	}
	ids = append(ids, id)
	d := s.lookup(id)
	for _, c := range refsOf(d) {
		ids = appendRun(ids, d.home, c, depth+1)
	}
	return ids
}

// scopeOf is what u's template sees; nil when its agent is unknown (only
// functions, filters and tests are checked then).
func (r *runIndex) scopeOf(u tmplUse) *prompt.Scope {
	d := u.d
	if d == nil || u.node == nil || u.node.Line == 0 {
		// no agent, or a template a factory made (not written in the file):
		// the factory binds what it reads
		return nil
	}
	if ts, ok := agents.Unwrap(d.agent).(templateScoper); ok {
		if sc, ok := ts.TemplateScope(u.t); ok {
			return &sc
		}
	}
	var own []string
	if ov, ok := agents.Unwrap(d.agent).(ownVarser); ok {
		own = ov.OwnVars()
	}
	if d.tool.used {
		own = append(own, "args") // a tool's arguments (tools.go)
	}
	ps := r.placements(d, 0)
	if len(ps) == 0 {
		// defined but never run: its variables as in its home workflow
		return &prompt.Scope{Vars: append(varsOf(d.home), own...)}
	}
	sc := &prompt.Scope{CheckOutputs: true, Vars: own}
	for _, p := range ps {
		sc.Vars = append(sc.Vars, varsOf(p.s)...)
		sc.Agents = append(sc.Agents, p.ids...)
	}
	sc.Absent = func(id string) string { return r.absent(d, ps, id) }
	return sc
}

// varsOf lists the variables the loops around workflow s bind.
func varsOf(s *scope) []string {
	var vars []string
	for ; s != nil; s = s.parent {
		if s.owner == nil || s.owner.agent == nil {
			continue
		}
		if cv, ok := agents.Unwrap(s.owner.agent).(childVarser); ok {
			vars = append(vars, cv.ChildVars()...)
		}
	}
	return vars
}

// absent explains why previous_outputs cannot hold id where d runs.
func (r *runIndex) absent(d *def, ps []placement, id string) string {
	if head, _, dotted := strings.Cut(id, "."); dotted {
		return fmt.Sprintf("%q is looked up as one agent id, not a path; write previous_outputs.%s to read the field of agent %q", id, id, head)
	}
	if id == "past_loops" {
		return "past_loops is not an agent: inside a loop read get_past_loops() or input.previous_outputs.past_loops"
	}
	for _, p := range ps {
		if p.s.wf != nil && slices.Contains(p.s.wf.Queue(), id) {
			if p.s.owner != nil {
				return fmt.Sprintf("%q runs after %q in each pass of loop %q, and every pass starts with empty previous_outputs; earlier passes are in past_loops", id, d.id, p.s.owner.id)
			}
			return fmt.Sprintf("%q runs after %q", id, d.id)
		}
		for s := p.s; s != nil && s.owner != nil; s = s.parent {
			if s.parent != nil && s.parent.lookup(id) != nil && s.defs[id] == nil {
				return fmt.Sprintf("%q runs outside loop %q; inside the loop read input.previous_outputs.%s", id, s.owner.id, id)
			}
		}
	}
	for _, s := range d.home.b.scopes {
		if s.owner != nil && s.defs[id] != nil {
			return fmt.Sprintf("%q runs inside loop %q, whose agents' outputs stay inside it; read previous_outputs.%s (the loop's output)", id, s.owner.id, s.owner.id)
		}
	}
	return ""
}
