package agents

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Data returns what templates see for this call.
func (in Input) Data() prompt.Data {
	d := prompt.Data{Input: in.Value, Previous: in.Previous.Map(), PreviousOrder: in.Previous.IDs(), Vars: in.Vars}
	if in.Loop != nil {
		d.LoopNumber = in.Loop.Number
		d.PastLoopsMetadata = in.Loop.Metadata
	}
	return d
}

// templateData is [Input.Data] for rendering t: previous_outputs holds only
// the outputs t reads (all of them when it may read any, see
// [prompt.Template.Outputs]), as maps built once per recorded output.
func (in Input) templateData(t *prompt.Template) prompt.Data {
	ids, all := t.Outputs()
	d := prompt.Data{Input: in.Value, Vars: in.Vars}
	if t.ReadsInput() || t.SearchesHistory() {
		// Inside a loop the history helpers hand back the wrapper's
		// past_loops: in the wrapper's order, as the input itself prints.
		d.Input = in.Loop.templateInput(in.Value)
	}
	if all {
		d.Previous, d.PreviousOrder = in.Previous.templateMap(nil, true), in.Previous.IDs()
	} else {
		d.Previous = in.Previous.templateMap(ids, false)
		if t.SearchesHistory() {
			// The history helpers walk the outputs (inside a loop they find
			// the history in the input and walk nothing).
			prev := in.Previous
			d.EachOutput = func(yield func(id string, out any) bool) {
				prev.EachView(yield)
			}
		}
	}
	if in.Loop != nil {
		d.LoopNumber = in.Loop.Number
		d.PastLoopsMetadata = in.Loop.Metadata
	}
	return d
}

// RenderOrInput renders t for this call, as [Input.Render]; a nil t gives the
// input text instead (inside a loop, the task text), as OrKa's nodes without
// a prompt read their input.
func (in Input) RenderOrInput(t *prompt.Template) (string, error) {
	if t == nil {
		if m, ok := in.Value.(map[string]any); ok {
			if v, ok := m["input"]; ok {
				return Text(v), nil
			}
		}
		return Text(in.Value), nil
	}
	s, err := in.Render(t)
	if err != nil {
		return "", fmt.Errorf("render prompt: %w", err)
	}
	return s, nil
}

// Render renders t for this call. A nil template renders "".
//
// A variable the template reads (unguarded: no "is defined", no default)
// that this call does not bind renders empty; the first time in a run that an
// agent's templates read such a name, a warning event with Data["code"]
// "undefined_name" says so, and under strict mode the render fails instead
// (every time). A render that calls an undefined function, filter or test
// fails with a [fault.FatalError] whose fix is the did-you-mean: repetition cannot
// fix it.
func (in Input) Render(t *prompt.Template) (string, error) {
	if t == nil {
		return "", nil
	}
	if t.Plain() { // reads no name: no data to build
		return t.Render(prompt.Data{})
	}
	d := in.templateData(t)
	if err := in.warnUndefined(t, d); err != nil {
		return "", err
	}
	s, miss, err := t.RenderChecked(d)
	if miss != nil && err == nil {
		if werr := in.warnMissingKey(t, miss); werr != nil {
			return "", werr
		}
	}
	if err != nil {
		if f, ok := t.Undefined(err); ok {
			fix := f.Fix()
			if fix == "" {
				fix = "no template function, filter or test has that name; see the template helpers in the README"
			}
			return "", fault.Fatal(err, fix)
		}
		return "", err
	}
	return s, nil
}

// warnMissingKey emits the missing_key warning of a lookup of a key a
// mapping lacks ({{ p.improvments }}), once per agent and key; under strict
// mode it is an error.
func (in Input) warnMissingKey(t *prompt.Template, m *prompt.MissingKey) error {
	if in.Run == nil {
		return nil
	}
	agent := in.Path
	if i := strings.LastIndex(agent, fault.PathSep); i >= 0 {
		agent = agent[i+len(fault.PathSep):]
	}
	msg := fmt.Sprintf("%s: %s has no key %q, so %s.%s renders empty", t.Name(), m.Path, m.Key, m.Path, m.Key)
	if best := load.Closest(m.Key, m.Keys); best != "" {
		msg += fmt.Sprintf("; did you mean %s.%s?", m.Path, best)
	} else if len(m.Keys) > 0 && len(m.Keys) <= 12 {
		msg += fmt.Sprintf(" (its keys: %s)", strings.Join(m.Keys, ", "))
	}
	warned := in.Run.Local(undefinedKey, func() any { return &sync.Map{} }).(*sync.Map)
	if _, dup := warned.LoadOrStore(agent+"\x00"+m.Path+"."+m.Key, true); dup {
		if in.Run.Strict {
			return fault.AtPath(in.Path, fmt.Errorf("%w: %s", ErrStrict, msg))
		}
		return nil
	}
	return in.Run.Warn(event.Event{Node: in.Path, Agent: agent, Message: msg,
		Data: map[string]any{"code": "missing_key", "name": m.Path + "." + m.Key, "template": t.Name()}})
}

// undefinedKey keys the run-local set of (agent, name) pairs already warned
// about.
var undefinedKey = new(byte)

// warnUndefined emits the undefined_name warnings of one render.
func (in Input) warnUndefined(t *prompt.Template, d prompt.Data) error {
	if in.Run == nil {
		return nil
	}
	missing := t.Missing(d)
	if len(missing) == 0 {
		return nil
	}
	agent := in.Path
	if i := strings.LastIndex(agent, fault.PathSep); i >= 0 {
		agent = agent[i+len(fault.PathSep):]
	}
	warned := in.Run.Local(undefinedKey, func() any { return &sync.Map{} }).(*sync.Map)
	for _, name := range missing {
		msg := fmt.Sprintf("%s: undefined variable %q renders empty", t.Name(), name)
		if _, dup := warned.LoadOrStore(agent+"\x00"+name, true); dup {
			if in.Run.Strict {
				return fault.AtPath(in.Path, fmt.Errorf("%w: %s", ErrStrict, msg))
			}
			continue
		}
		err := in.Run.Warn(event.Event{Node: in.Path, Agent: agent, Message: msg,
			Data: map[string]any{"code": "undefined_name", "name": name, "template": t.Name()}})
		if err != nil {
			return err
		}
	}
	return nil
}
