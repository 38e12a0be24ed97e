package loopnode

import (
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/internal/pyvalue"
)

// The key order templates see a loop's output in, as OrKa builds it.
var (
	// shapeKeys: OrKa's previous_outputs entry of a loop
	// (orchestrator/metrics.py build_previous_outputs); cogloop's own keys
	// follow, sorted.
	shapeKeys = []string{"response", "result", "past_loops", "loops_completed", "final_score",
		"threshold_met", "confidence", "internal_reasoning"}
	// loopDictKeys: OrKa's loop result (nodes/loop/runner.py), the entry's
	// response.
	loopDictKeys = []string{"input", "result", "loops_completed", "final_score", "threshold_met", "past_loops"}
	// entryTail: what OrKa's past_loop_builder.py sets by default after the
	// past_loops_metadata keys.
	entryTail = []string{"loop_number", "score", "timestamp"}
)

// orders are the key orders of a loop's values that depend only on its
// configuration, made once per Node.
type orders struct {
	once    sync.Once
	past    *pyvalue.Order // past_loops: each entry in entryOrder
	wrapper *pyvalue.Order // a pass's wrapper in a workflow with no agent before the loop
	meta    []string       // the past_loops_metadata keys in order
}

// fixedOrders returns n's orders, made on first use.
func (n *Node) fixedOrders() *orders {
	o := &n.orders
	o.once.Do(func() {
		o.meta = make([]string, len(n.metas))
		for i, m := range n.metas {
			o.meta[i] = m.key
		}
		o.past = &pyvalue.Order{Elem: entryOrder(o.meta)}
		o.wrapper = wrapperOrder(nil, o.past, o.meta)
	})
	return o
}

// entryOrder is the key order of a past_loops entry: the
// past_loops_metadata keys in their order, then loop_number, score and
// timestamp, then the further lesson categories (sorted).
func entryOrder(meta []string) *pyvalue.Order {
	keys := make([]string, 0, len(meta)+len(entryTail))
	return &pyvalue.Order{Keys: append(append(keys, meta...), entryTail...)}
}

// shapeOrder is the key order of [orkaShape]: its result holds the outputs
// of final, each in its own order, and its past_loops entries are in
// entryOrder.
func (n *Node) shapeOrder(final *agents.Outputs) *pyvalue.Order {
	past := n.fixedOrders().past
	result := final.TemplateOrder()
	return &pyvalue.Order{
		Keys: shapeKeys,
		Sub: map[string]*pyvalue.Order{
			"response":   {Keys: loopDictKeys, Sub: map[string]*pyvalue.Order{"result": result, "past_loops": past}},
			"result":     result,
			"past_loops": past,
		},
	}
}

// wrapperKeys: OrKa's loop pass input (nodes/loop/internal_workflow_runner.py
// build_loop_workflow_input), the "input" templates inside a pass see.
var wrapperKeys = []string{"input", "previous_outputs", "loop_number", "scoring_context", "past_loops_metadata"}

// passWrapperOrder is the key order templates see a pass's wrapper in, for
// a loop run after the outputs parent.
func (n *Node) passWrapperOrder(parent *agents.Outputs) *pyvalue.Order {
	o := n.fixedOrders()
	if parent.Len() == 0 {
		return o.wrapper
	}
	return wrapperOrder(parent.IDs(), o.past, o.meta)
}

// wrapperOrder is the key order of a pass's wrapper: OrKa's,
// previous_outputs with the enclosing workflow's agents (ids, in run order)
// and past_loops last (its entries in entryOrder), past_loops_metadata in its
// keys' order. The enclosing workflow's outputs inside keep sorted order.
func wrapperOrder(ids []string, past *pyvalue.Order, meta []string) *pyvalue.Order {
	return &pyvalue.Order{
		Keys: wrapperKeys,
		Sub: map[string]*pyvalue.Order{
			"previous_outputs":    {Keys: append(ids, "past_loops"), Sub: map[string]*pyvalue.Order{"past_loops": past}},
			"past_loops_metadata": {Keys: meta},
		},
	}
}
