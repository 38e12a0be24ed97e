package loopnode

import (
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

// entryOrder is the key order of a past_loops entry: the
// past_loops_metadata keys in their order, then loop_number, score and
// timestamp, then the further lesson categories (sorted).
func entryOrder(metas []metaTemplate) *pyvalue.Order {
	keys := make([]string, 0, len(metas)+len(entryTail))
	for _, m := range metas {
		keys = append(keys, m.key)
	}
	return &pyvalue.Order{Keys: append(keys, entryTail...)}
}

// shapeOrder is the key order of [orkaShape]: its result holds the outputs
// of final, each in its own order, and its past_loops entries are in
// entryOrder.
func (n *Node) shapeOrder(final *agents.Outputs) *pyvalue.Order {
	past := &pyvalue.Order{Elem: entryOrder(n.metas)}
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

// wrapperOrder is the key order templates see a pass's wrapper in: OrKa's,
// previous_outputs with the enclosing workflow's agents in run order and
// past_loops last (its entries in entryOrder), past_loops_metadata in its
// keys' order. The enclosing workflow's outputs inside keep sorted order.
func (n *Node) wrapperOrder(parent *agents.Outputs) *pyvalue.Order {
	meta := make([]string, len(n.metas))
	for i, m := range n.metas {
		meta[i] = m.key
	}
	return &pyvalue.Order{
		Keys: wrapperKeys,
		Sub: map[string]*pyvalue.Order{
			"previous_outputs": {Keys: append(parent.IDs(), "past_loops"),
				Sub: map[string]*pyvalue.Order{"past_loops": {Elem: entryOrder(n.metas)}}},
			"past_loops_metadata": {Keys: meta},
		},
	}
}
