package prompt

import (
	"sort"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Data is what a template sees. Helpers (get_input, get_past_loops, ...) read it too.
type Data struct {
	// Input is the "input" variable: the workflow input, or inside a loop iteration
	// the wrapper mapping {input, previous_outputs, loop_number, past_loops_metadata}.
	Input any
	// Previous is previous_outputs: agent id → that agent's output in OrKa's shape
	// (map[string]any with response, confidence, ...; error records {status, error}).
	Previous map[string]any
	// PreviousOrder lists the ids of Previous in run order. Helpers that look for
	// the first output with some field (get_past_loops, get_loop_status, ...)
	// follow it, as OrKa follows its ordered dict; ids it does not list come after
	// in sorted order. Nil means sorted order.
	PreviousOrder []string
	// LoopNumber is loop_number inside a loop iteration, 0 outside.
	LoopNumber int
	// PastLoopsMetadata is past_loops_metadata inside a loop iteration, nil outside.
	PastLoopsMetadata map[string]any
	// Vars are further top-level variables; they do not replace the ones above.
	Vars map[string]any
	// EachOutput, when set, walks every output of previous_outputs in run
	// order (its id and its mapping, the newest of a repeated id) until yield
	// returns false. The history helpers (get_past_loops, has_past_loops,
	// get_past_insights, get_past_loop_data) search it instead of Previous,
	// which then need hold only the outputs the template names
	// ([Template.Outputs], [Template.SearchesHistory]).
	EachOutput func(yield func(id string, out any) bool)
}

// emptyOutputs stands for a nil Data.Previous. Templates cannot change it: the
// only mutable mappings are namespace() objects.
var emptyOutputs = map[string]any{}

// bind puts d's variables into the render context: Vars first, then the fixed
// variables, which win.
func bind(ctx *exec.Context, d *Data, st *renderState) {
	for k, v := range d.Vars {
		ctx.Set(k, v)
	}
	ctx.Set("input", d.Input)
	ctx.Set("previous_outputs", d.previousValue())
	if d.LoopNumber > 0 {
		ctx.Set("loop_number", d.LoopNumber)
	}
	if d.PastLoopsMetadata != nil {
		ctx.Set("past_loops_metadata", d.PastLoopsMetadata)
	}
	ctx.Set(stateKey, st)
}

// bound is the value bind gives the variable name, if any: the fixed
// variables, then Vars.
func (d *Data) bound(name string) (any, bool) {
	switch name {
	case "input":
		return d.Input, true
	case "previous_outputs":
		return d.previousValue(), true
	case "loop_number":
		if d.LoopNumber > 0 {
			return d.LoopNumber, true
		}
	case "past_loops_metadata":
		if d.PastLoopsMetadata != nil {
			return d.PastLoopsMetadata, true
		}
	}
	v, ok := d.Vars[name]
	return v, ok
}

// previousIDs returns the ids of Previous in run order.
func (d *Data) previousIDs() []string {
	if len(d.Previous) == 0 {
		return nil
	}
	ids := make([]string, 0, len(d.Previous))
	listed := make(map[string]bool, len(d.PreviousOrder))
	for _, id := range d.PreviousOrder {
		if _, ok := d.Previous[id]; ok && !listed[id] {
			ids = append(ids, id)
			listed[id] = true
		}
	}
	if len(ids) == len(d.Previous) {
		return ids
	}
	rest := make([]string, 0, len(d.Previous)-len(ids))
	for id := range d.Previous {
		if !listed[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	return append(ids, rest...)
}
