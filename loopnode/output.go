package loopnode

import "github.com/cogloop/cogloop/agents"

// output is the loop's result: OrKa's dict (input, result, loops_completed,
// final_score, threshold_met, past_loops) as fields next to the answer text in
// response, plus stop_reason, best_score, best_iteration and iterations (cut
// passes too, marked completed: false). loops_completed and count are the
// passes that ran to the end.
func (n *Node) output(in agents.Input, st *state, completed int) agents.Output {
	final, pass, _ := n.returned(st)
	result := map[string]any{}
	final.EachMap(func(id string, m map[string]any) bool {
		result[id] = m // the map templates and the pass's scan read, made once
		return true
	})
	iters := make([]any, len(st.iterations))
	for i, it := range st.iterations {
		iters[i] = it.Map()
	}
	// The typed result is made first and the fields templates see are read
	// from it (past_loops and iterations keep their template forms: the
	// entries as rendered, and the passes' extra keys).
	typed := n.result(st, completed)
	fields := map[string]any{
		"input":           in.Value,
		"result":          result,
		"loops_completed": typed.LoopsCompleted,
		"final_score":     typed.FinalScore,
		"threshold_met":   typed.ThresholdMet,
		"past_loops":      pastLoopsValue(st.past),
		"stop_reason":     string(typed.StopReason),
		"best_score":      typed.BestScore,
		"best_iteration":  typed.BestIteration,
		"iterations":      iters,
		"count":           typed.LoopsCompleted,
		"usage":           usageValue(typed.Usage),
	}
	if len(n.outputs) > 0 || len(n.declaredOuts) > 0 {
		last := pass
		if n.best {
			last = st.lastPass
		}
		outs := n.mappedOutputs(st, last)
		vars := n.varsOf(st)
		for _, name := range n.declaredOuts {
			if _, ok := outs[name]; !ok {
				outs[name] = vars[name]
			}
		}
		fields["outputs"] = outs
	}
	if len(n.vars) > 0 {
		fields["vars"] = n.varsOf(st)
	}
	if n.lastSuccessful {
		fields["returned_iteration"] = pass
	}
	if typed.Error != "" {
		fields["error"] = typed.Error
	}
	answer := n.answer(final)
	return agents.Output{
		Response: answer,
		Fields:   fields,
		Shape:    orkaShape(fields, answer),
		Order:    n.shapeOrder(final),
		Typed:    typed,
		Usage:    st.usage,
		Children: final,
	}
}

// orkaShape is what templates and an enclosing loop's scoring see of the
// loop: OrKa's previous_outputs entry of a loop (orchestrator/metrics.py
// build_previous_outputs) — response is OrKa's loop dict {input, result,
// loops_completed, final_score, threshold_met, past_loops}, so
// previous_outputs.<loop>.response.result.<agent> resolves; confidence 1.0 and
// internal_reasoning "" as OrKa's normaliser sets them — next to cogloop's own
// keys (stop_reason, best_score, …) and answer, the loop's answer text.
func orkaShape(fields map[string]any, answer any) map[string]any {
	shape := make(map[string]any, len(fields)+4)
	for k, v := range fields {
		shape[k] = v
	}
	shape["response"] = map[string]any{
		"input": fields["input"], "result": fields["result"], "loops_completed": fields["loops_completed"],
		"final_score": fields["final_score"], "threshold_met": fields["threshold_met"], "past_loops": fields["past_loops"],
	}
	shape["confidence"] = 1.0
	shape["internal_reasoning"] = ""
	shape["answer"] = answer
	return shape
}

// answerOK: the pass's answer agent (output_agent, else every agent) did not
// fail — what return: last_successful keeps.
func (n *Node) answerOK(outs *agents.Outputs, failed []failure) bool {
	if n.outputAgent != "" {
		o, ok := outs.Get(n.outputAgent)
		return ok && !o.Failed()
	}
	return len(failed) == 0
}

// answer picks the loop's answer text from an iteration: output_agent's response,
// else the first agent that produced non-empty text.
func (n *Node) answer(outs *agents.Outputs) any {
	if n.outputAgent != "" {
		if o, ok := outs.Get(n.outputAgent); ok && !o.Failed() {
			return o.Response
		}
		return ""
	}
	var ans any = ""
	outs.Each(func(id string, o agents.Output) bool {
		if o.Failed() {
			return true
		}
		if s, ok := o.Response.(string); ok && s != "" {
			ans = s
			return false
		}
		return true
	})
	return ans
}
