package cogloop

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/orchestrator"
)

// New makes a workflow of agents built in Go (a loop from loopnode.NewLoop,
// a fork, a router, any [agents.Agent]), so that Run, Result, checkpoints,
// budgets, events, tracing and the queue apply to it as to a loaded file.
// An [agents.Sequence] root runs its steps as the workflow's queue; any
// other root is its one step, named by its ID() when it has one (a loop, a
// fork, a router), else by id. [WithPricing] and [WithStrict] apply;
// [WithRegistry] and [WithPresetsDir], which shape loading, are refused.
//
// Its Digest hashes the workflow id and its steps' ids and types: a resume
// notices a changed queue, not a changed Go value.
func New(id string, root agents.Agent, opts ...LoadOption) (*Workflow, error) {
	o := loadOptions{}
	for _, fn := range opts {
		fn(&o)
	}
	if o.reg != nil || o.presetsDir != "" {
		// They shape how YAML is built; a Go workflow is built already.
		return nil, fmt.Errorf("workflow %q: WithRegistry and WithPresetsDir apply to loading YAML, not to cogloop.New (pass presets to the loops' scoring instead)", id)
	}
	var steps []agents.Step
	switch r := root.(type) {
	case agents.Sequence:
		steps = r.Steps
	case *agents.Sequence:
		steps = r.Steps
	case nil:
		return nil, fmt.Errorf("workflow %q: the root agent is nil", id)
	default:
		name, typ := id, "go"
		if n, ok := agents.Unwrap(root).(interface{ ID() string }); ok && n.ID() != "" {
			name = n.ID()
		}
		if t, ok := agents.Unwrap(root).(interface{ Type() string }); ok {
			typ = t.Type()
		}
		steps = []agents.Step{agents.NewStep(name, typ, root)}
	}
	var popts []orchestrator.Option
	if o.pricing != nil {
		popts = append(popts, orchestrator.WithPricing(o.pricing))
	}
	if o.strict {
		popts = append(popts, orchestrator.WithStrict())
	}
	wf, err := orchestrator.New(id, steps, popts...)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "go-workflow\x00%s", id)
	for _, st := range steps {
		fmt.Fprintf(h, "\x00%s\x00%s", st.ID, st.Type)
	}
	return &Workflow{wf: wf, Digest: hex.EncodeToString(h.Sum(nil))}, nil
}
