package orchestrator

import (
	"errors"
	"fmt"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

// New is a workflow whose queue is steps built in Go (agents.NewStep): it
// runs them in order as a loaded workflow runs its agents list, through the
// same [agents.Sequence]. [WithPricing] and [WithStrict] apply; a budget is
// set on the loops (loopnode.Config.Budget) or given per run.
func New(id string, steps []agents.Step, opts ...Option) (*Workflow, error) {
	o := options{}
	for _, fn := range opts {
		fn(&o)
	}
	var errs []error
	if id == "" {
		errs = append(errs, errors.New("workflow id is empty: name the workflow (it keys checkpoints and events)"))
	}
	if len(steps) == 0 {
		errs = append(errs, fmt.Errorf("workflow %q has no steps", id))
	}
	seen := map[string]bool{}
	w := &Workflow{ID: id, Strict: o.strict, pricing: o.pricing}
	for i, st := range steps {
		switch {
		case st.ID == "":
			errs = append(errs, fmt.Errorf("workflow %q: step %d has no id", id, i+1))
		case seen[st.ID]:
			errs = append(errs, fmt.Errorf("workflow %q: step id %q is used twice", id, st.ID))
		case st.Agent == nil:
			errs = append(errs, fmt.Errorf("workflow %q: step %q has no agent", id, st.ID))
		}
		seen[st.ID] = true
		// NewStep reads the abilities (a fork's exposed branches, a
		// router's routes) a literal Step would lack.
		st = agents.NewStep(st.ID, st.Type, st.Agent)
		w.steps = append(w.steps, step{Step: st})
		w.defined = append(w.defined, st.ID)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if w.pricing == nil {
		w.pricing = spend.DefaultPricing()
	}
	w.seq.Steps = make([]agents.Step, len(w.steps))
	for i, st := range w.steps {
		w.seq.Steps[i] = st.Step
	}
	w.all = append([]string(nil), w.defined...)
	return w, nil
}
