package orchestrator

import (
	"fmt"
	"runtime/debug"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// Specs are the key specifications of a workflow file, recorded by running the
// loader in recording mode ([load.NewRecording]): the same code that
// reads a file reads an empty recording config, and every key it asks for is
// noted. The JSON Schema of workflow files is generated from them.
type Specs struct {
	// Workflow is the top level of a file (orchestrator, agents, OrKa's
	// top-level keys); Internal is a loop's internal_workflow.
	Workflow, Internal *load.Spec
	// Agents is each registered type's keys, the keys every definition has
	// (id, type, depends_on, timeout, retry, ...) included.
	Agents map[string]*load.Spec
}

// RecordSpecs records the specs of every type of reg. A factory that panics in
// recording mode is an error naming its type.
func RecordSpecs(reg *agents.Registry, opts ...Option) (Specs, error) {
	o := options{limits: DefaultLimits}
	for _, fn := range opts {
		fn(&o)
	}
	rec := func() *builder {
		return &builder{file: "spec", reg: reg, probs: &load.Problems{}, opts: o, recording: true}
	}
	var out Specs
	b := rec()
	if err := recordSafely("workflow", func() { b.workflow(nil, "workflow", nil) }); err != nil {
		return out, err
	}
	out.Workflow = b.spec
	b = rec()
	parent := &scope{b: b, defs: map[string]*def{}}
	if err := recordSafely("internal_workflow", func() { b.workflow(nil, "internal_workflow", parent) }); err != nil {
		return out, err
	}
	out.Internal = b.spec
	out.Agents = map[string]*load.Spec{}
	for _, typ := range reg.Types() {
		b := rec()
		s := &scope{b: b, defs: map[string]*def{}}
		err := recordSafely("agent type "+typ, func() {
			d := s.readDef(b.config(nil, "agent"), "spec", typ)
			s.defs[d.id] = d
			s.order = append(s.order, d)
			s.construct(d)
		})
		if err != nil {
			return out, err
		}
		out.Agents[typ] = b.spec
	}
	return out, nil
}

func recordSafely(what string, fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("record the keys of %s: panic: %v\n%s", what, r, debug.Stack())
		}
	}()
	fn()
	return nil
}
