package flow

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"go.yaml.in/yaml/v3"
)

// Failover tries its children in order until one gives a valid result (type
// failover). It is immutable and safe for concurrent Run calls.
//
// YAML keys: children (required: a list of inline agent definitions, each with
// its own id and type). A valid result is one that is not an error and whose
// response is not empty.
type Failover struct {
	id       string
	children []agents.Step
}

var _ agents.Agent = (*Failover)(nil)

// NewFailover builds a failover from its definition (the registry's factory for
// type failover).
func NewFailover(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	f := &Failover{id: c.String("id", "")}
	c.Ignore(orkaIgnored...)
	list := c.Node("children")
	switch {
	case list == nil || (list.Kind == yaml.ScalarNode && list.Tag == "!!null"):
		c.Errorf("", "missing children: the agents to try in order, each defined inline ({id, type, ...})")
		return f, nil
	case list.Kind != yaml.SequenceNode:
		c.Errorf("children", "children must be a list of inline agent definitions, not %s", load.KindName(list))
		return f, nil
	case len(list.Content) == 0:
		c.Errorf("children", "children is empty: define at least one agent to try")
		return f, nil
	}
	seen := map[string]bool{}
	for _, item := range list.Content {
		item = load.Resolve(item)
		id, typ := mappingValue(item, "id"), mappingValue(item, "type")
		if id != "" && seen[id] {
			c.Problems().Errorf(c.PosOf(item), "%s: children define %q twice; child ids must be unique", c.What(), id)
			continue
		}
		a, err := b.Inline(item)
		if err != nil {
			c.Problems().Errorf(c.PosOf(item), "%s: child %q: %v", c.What(), id, err)
			continue
		}
		if id == "" {
			continue // Inline recorded the missing id
		}
		seen[id] = true
		f.children = append(f.children, agents.NewStep(id, typ, a))
	}
	return f, nil
}

// Run runs the children in order (each at path <failover> › <child>, with its
// events) and returns the first valid result: the child's response, prompt and
// fields, plus successful_child, result (the child's output mapping) and
// <child id>: the same mapping, as OrKa's failover does; Usage sums every child
// tried, and Children holds their outputs. When every child fails the error names
// each child's failure.
//
// A child's fatal error ([fault.IsFatal]: a missing key, an unknown model) is
// that child failing: the next child is tried, which is what a failover is for.
// When every child failed and every failure was fatal, the failover's error is
// fatal too; cancellation stops it at once.
func (f *Failover) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	var usage spend.Usage
	var tried *agents.Outputs
	failures := make([]string, 0, len(f.children))
	fatal := 0
	for _, ch := range f.children {
		out, err := agents.RunStep(ctx, ch, in)
		if err != nil {
			if ctx.Err() != nil || !fault.IsFatal(err) || fault.AsInterrupt(err) != nil {
				return agents.Output{Usage: usage, Children: tried}, err
			}
			fatal++
			out = agents.ErrorRecord(err)
		}
		usage = usage.Add(out.Usage)
		tried = tried.With(ch.ID, out)
		if why := invalid(out); why != "" {
			why = strings.TrimPrefix(why, fault.JoinPath(in.Path, ch.ID)+": ")
			failures = append(failures, ch.ID+": "+why)
			continue
		}
		m := out.Map()
		fields := make(map[string]any, len(out.Fields)+3)
		for k, v := range out.Fields {
			fields[k] = v
		}
		fields["successful_child"] = ch.ID
		fields["result"] = m
		fields[ch.ID] = m
		return agents.Output{Response: out.Response, Prompt: out.Prompt, Fields: fields, Typed: out.Typed, Usage: usage, Children: tried}, nil
	}
	if len(failures) == 0 {
		return agents.Output{}, fmt.Errorf("failover has no children")
	}
	err := fmt.Errorf("every child failed: %s", strings.Join(failures, "; "))
	if fatal == len(failures) {
		err = fault.Fatal(err, "") // each failure above says its fix
	}
	return agents.Output{Usage: usage, Children: tried}, err
}

// invalid says why out is not a valid result, or "" when it is.
func invalid(out agents.Output) string {
	if out.Failed() {
		return out.Err
	}
	switch v := out.Response.(type) {
	case nil:
		return "no response"
	case string:
		if strings.TrimSpace(v) == "" {
			return "empty response"
		}
	}
	return ""
}
