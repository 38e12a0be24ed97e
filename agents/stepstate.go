package agents

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
)

// A run interrupted by a human step or a pause ([fault.Interrupt]) saves the
// outputs of the steps it finished under "step:<path>", so that continuing it
// (a resume) takes those outputs instead of running the steps again: no model
// call is repeated. A loop's output is not saved this way: the loop's own
// checkpoint restores it without a model call.

// stepPrefix names step records among a checkpoint's paths.
const stepPrefix = "step:"

// savedStep is one finished step's output as a checkpoint keeps it.
type savedStep struct {
	Response any            `json:"response,omitempty"`
	Fields   map[string]any `json:"fields,omitempty"`
	Shape    map[string]any `json:"shape,omitempty"`
	Prompt   string         `json:"prompt,omitempty"`
	Usage    spend.Usage    `json:"usage"`
	Err      string         `json:"error,omitempty"`
	Children []namedStep    `json:"children,omitempty"`
}

type namedStep struct {
	ID  string    `json:"id"`
	Out savedStep `json:"out"`
}

func toSaved(o Output) savedStep {
	s := savedStep{Response: o.Response, Fields: o.Fields, Shape: o.Shape, Prompt: o.Prompt, Usage: o.Usage, Err: o.Err}
	o.Children.Each(func(id string, c Output) bool {
		s.Children = append(s.Children, namedStep{ID: id, Out: toSaved(c)})
		return true
	})
	return s
}

func (s savedStep) output() Output {
	o := Output{Response: Plain(s.Response), Prompt: s.Prompt, Usage: s.Usage, Err: s.Err}
	if s.Fields != nil {
		o.Fields, _ = Plain(s.Fields).(map[string]any)
	}
	if s.Shape != nil {
		o.Shape, _ = Plain(s.Shape).(map[string]any)
	}
	for _, c := range s.Children {
		o.Children = o.Children.With(c.ID, c.Out.output())
	}
	return o
}

// hasSteps reports whether the restored state holds step records, so a
// fresh run's sequences skip the lookups.
func (c *Checkpoint) hasSteps() bool {
	if c == nil {
		return false
	}
	c.stepsOnce.Do(func() {
		for p := range c.restored {
			if strings.HasPrefix(p, stepPrefix) {
				c.steps = true
				return
			}
		}
	})
	return c.steps
}

// restoreStep returns the output saved for the step at path, if any.
func (c *Checkpoint) restoreStep(path string) (Output, bool, error) {
	var s savedStep
	ok, err := c.Restore(stepPrefix+path, &s)
	if !ok || err != nil {
		return Output{}, false, err
	}
	return s.output(), true, nil
}

// SaveSteps saves the outputs of finished steps, each under its path
// (parent › id), for a run that is being interrupted: continuing it takes
// them instead of running the steps again. Outputs with a typed result (a
// loop's) are left out: their own checkpoint restores them. A nil
// checkpoint saves nothing.
func (c *Checkpoint) SaveSteps(ctx context.Context, parent string, outs *Outputs) error {
	if c == nil || outs.Len() == 0 {
		return nil
	}
	states := map[string]any{}
	outs.Each(func(id string, o Output) bool {
		if o.Typed == nil {
			states[stepPrefix+fault.JoinPath(parent, id)] = toSaved(o)
		}
		return true
	})
	if err := c.SaveAll(ctx, states); err != nil {
		return fmt.Errorf("save the finished steps of %q: %w", parent, err)
	}
	return nil
}
