package agents

import (
	"reflect"
	"slices"
	"sort"

	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
)

// What templates see of an output is its mapping ([Output.Map]) in its own
// key order, as OrKa's Python dicts keep insertion order: printed whole
// ({{ previous_outputs.x }}), iterated, or listed with items() it reads as
// OrKa's does. The view is made once per recorded output and shared.

// resultHead and resultTail are where OrKa's LLM agents put their fixed keys
// (orka/agents/llm_agents.py: the parsed reply's response, confidence and
// internal_reasoning first, then _metrics and formatted_prompt are added).
var (
	resultHead = []string{"response", "confidence", "internal_reasoning"}
	resultTail = []string{"_metrics", "formatted_prompt"}
	// resultKeys is the whole order of a result with no other keys.
	resultKeys = append(append([]string(nil), resultHead...), resultTail...)
	// unordered leaves a mapping in sorted order.
	unordered = &pyvalue.Order{}
	// resultOrder is the order of a result with no other keys.
	resultOrder = &pyvalue.Order{Keys: resultKeys}
)

// templateOrder is the key order templates see m, o's mapping, in:
// [Output.Order]'s keys first (a structured reply's own order, as OrKa keeps
// the parsed JSON object), then those of OrKa's order of an agent's result it
// does not list (response, confidence, internal_reasoning), the other keys
// sorted, then _metrics and formatted_prompt; a shape in [Output.Order] alone;
// an error record's keys sorted.
func (o Output) templateOrder(m map[string]any) *pyvalue.Order {
	switch {
	case o.Failed():
		return unordered
	case o.Order != nil && o.Shape != nil:
		return o.Order
	}
	var own []string
	if o.Order != nil {
		own = slices.DeleteFunc(slices.Clone(o.Order.Keys), func(k string) bool { return slices.Contains(resultTail, k) })
	}
	var rest []string
	for k := range m {
		if !slices.Contains(resultKeys, k) && !slices.Contains(own, k) {
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 && o.Order == nil {
		return resultOrder
	}
	sort.Strings(rest)
	keys := make([]string, 0, len(own)+len(resultKeys)+len(rest))
	keys = append(keys, own...)
	for _, k := range resultHead {
		if !slices.Contains(own, k) {
			keys = append(keys, k)
		}
	}
	keys = append(append(keys, rest...), resultTail...)
	out := &pyvalue.Order{Keys: keys}
	if o.Order != nil {
		out.Sub = o.Order.Sub
	}
	return out
}

// outView is the output as templates see it: its map in its key order, made
// once.
func (v *outVal) outView() any {
	v.viewOnce.Do(func() {
		m := v.outMap()
		v.view = prompt.View(m, v.out.templateOrder(m))
	})
	return v.view
}

// EachView calls fn for every output in run order with the value templates
// see for it (its mapping in its own key order, see [prompt.View]) until fn
// returns false. The value is made once per record and shared.
func (p *Outputs) EachView(fn func(id string, view any) bool) {
	p.each(func(r *outRec) bool { return fn(r.id, r.outView()) })
}

// TemplateOrder is the key order of p's outputs gathered into one mapping of
// agent id → output mapping (as a loop's result holds its pass's outputs):
// the ids in run order, each output in the order templates see it in.
func (p *Outputs) TemplateOrder() *pyvalue.Order {
	o := &pyvalue.Order{Sub: map[string]*pyvalue.Order{}}
	p.each(func(r *outRec) bool {
		o.Keys = append(o.Keys, r.id)
		o.Sub[r.id] = r.out.templateOrder(r.outMap())
		return true
	})
	return o
}

// inputView is a pass's wrapper as templates see it, for the value it was
// made from.
type inputView struct{ src, view any }

// templateInput is v as templates that name input or call a history helper
// see it: inside a loop pass with a [LoopState.Order], the pass's wrapper in
// that order, made once per pass and shared by its agents' renders (so what
// get_past_loops() hands back prints in OrKa's order too).
func (s *LoopState) templateInput(v any) any {
	if s == nil || s.Order == nil {
		return v
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if c := s.inputView.Load(); c != nil && sameMap(c.src, m) {
		return c.view
	}
	view := prompt.View(m, s.Order)
	s.inputView.Store(&inputView{src: m, view: view})
	return view
}

// sameMap reports whether src is the map m itself.
func sameMap(src any, m map[string]any) bool {
	sm, ok := src.(map[string]any)
	return ok && len(sm) == len(m) && reflect.ValueOf(sm).UnsafePointer() == reflect.ValueOf(m).UnsafePointer()
}
