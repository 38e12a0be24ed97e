package flow

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/internal/pyvalue"
)

// Join gathers a fork's branch outputs (type join). Its fork has run every branch
// to completion before the join runs, so the join only reads the fork's output
// from previous_outputs. It is immutable and safe for concurrent Run calls.
//
// YAML keys: group (the fork's id; default: the nearest fork defined before the
// join in the agents list, with a warning). OrKa's max_retries is accepted and
// ignored: nothing is ever pending.
type Join struct {
	id    string
	group string
}

var _ agents.Agent = (*Join)(nil)

// NewJoin builds a join from its definition (the registry's factory for type join).
// A group that names no agent or an agent that is not a fork is a load problem.
func NewJoin(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	j := &Join{id: c.String("id", "")}
	c.Ignore(orkaIgnored...)
	c.Ignore("max_retries")
	if c.Has("group") {
		j.group = strings.TrimSpace(c.String("group", ""))
		if j.group == "" {
			c.Errorf("group", "group is empty: name the fork whose branches this join waits for")
			return j, nil
		}
		st, ok := ref(b, c, "group", j.group, c.ValuePos("group"))
		if ok && st.Agent != nil {
			if _, isFork := agents.Unwrap(st.Agent).(*Fork); !isFork {
				what := "an agent"
				if st.Type != "" {
					what = "an agent of type " + st.Type
				}
				c.Errorf("group", "group %q is %s, not a fork; a join waits for the branches of a fork", j.group, what)
			}
		}
		return j, nil
	}
	j.group = nearestFork(b, j.id)
	if j.group != "" {
		c.Warnf("", "no group: joining fork %q, the nearest fork defined before this join (set group: %s to say so)", j.group, j.group)
	} else {
		c.Errorf("", "no group and no fork is defined before this join: set group to the id of the fork to join")
	}
	return j, nil
}

// nearestFork is the id of the last fork defined before the join with id self
// that is not itself a branch of another fork defined before it; "" when there
// is none.
func nearestFork(b *agents.Builder, self string) string {
	defined := b.Defined()
	if i := slices.Index(defined, self); i >= 0 {
		defined = defined[:i]
	}
	inBranch := map[string]bool{}
	nearest := ""
	for _, id := range defined {
		if typ, _ := b.TypeOf(id); typ != TypeFork {
			continue
		}
		a, err := b.Ref(id, load.Pos{})
		if err != nil {
			continue
		}
		f, isFork := agents.Unwrap(a).(*Fork)
		if !isFork {
			continue
		}
		for _, child := range f.flat {
			inBranch[child] = true
		}
		if !inBranch[id] {
			nearest = id
		}
	}
	return nearest
}

// Run returns {status: done, merged: {agent: output}, <agent>: output...} for the
// fork's branch agents (Children of the fork's output). Its Response is a digest
// of their answers in declaration order, one "<agent>: <response>" paragraph
// each (or "<agent> failed: <error>"), so the join reads as text in prompts and
// as a workflow's last answer, and lesson extraction scans it line by line
// instead of as a serialised mapping. It fails when the fork has not run before
// it in this workflow, or failed (fail_fast).
func (j *Join) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if j.group == "" {
		return agents.Output{}, fmt.Errorf("join has no group: set group to the id of the fork to join")
	}
	fork, ok := in.Previous.Get(j.group)
	if !ok {
		return agents.Output{}, fmt.Errorf("fork %q has not run before this join; list it before the join in the orchestrator's agents", j.group)
	}
	if fork.Failed() {
		return agents.Output{}, fmt.Errorf("fork %q failed: %s", j.group, fork.Err)
	}
	merged := make(map[string]any, fork.Children.Len())
	fields := make(map[string]any, fork.Children.Len()+3)
	fields["status"] = "done"
	fields["fork_group"] = j.group
	fields["merged"] = merged
	var digest strings.Builder
	size := 0
	fork.Children.Each(func(id string, o agents.Output) bool {
		if s, ok := o.Response.(string); ok {
			size += len(id) + len(s) + 4
		} else {
			size += len(id) + len(o.Err) + 32
		}
		return true
	})
	// The branch agents' maps are the ones templates read as
	// previous_outputs.<agent> (made once per output; nobody changes them).
	fork.Children.EachMap(func(id string, m map[string]any) bool {
		merged[id] = m
		if _, reserved := fields[id]; !reserved && id != "response" {
			fields[id] = m
		}
		return true
	})
	digest.Grow(size)
	fork.Children.Each(func(id string, o agents.Output) bool {
		if digest.Len() > 0 {
			digest.WriteString("\n\n")
		}
		digest.WriteString(id)
		if o.Failed() {
			digest.WriteString(" failed: ")
			digest.WriteString(o.Err)
		} else {
			digest.WriteString(": ")
			digest.WriteString(o.Text())
		}
		return true
	})
	// Templates see OrKa's join result, {status, merged, **merged} (and
	// fork_group), without response: safe_get_response gives its fallback as
	// OrKa's does. The digest stays the answer the CLI and return: read.
	return agents.Output{Response: digest.String(), Fields: fields, Shape: fields, Order: joinOrder(fork.Children)}, nil
}

// joinOrder is the key order templates see a join in: OrKa's join result
// (nodes/join_node.py: status, merged, then each branch agent's output), the
// branch agents in run order, each output in its own order.
func joinOrder(kids *agents.Outputs) *pyvalue.Order {
	branches := kids.TemplateOrder()
	o := &pyvalue.Order{Keys: append([]string{"status", "merged"}, branches.Keys...), Sub: maps.Clone(branches.Sub)}
	o.Sub["merged"] = branches
	return o
}
