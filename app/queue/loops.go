package queue

import (
	"encoding/json"
	"fmt"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/loopnode"
)

// loopRecord is a top-level loop's typed result as a run's record keeps it
// (Record.LoopResults): the loopnode.Result, with what its JSON leaves to
// the loop's output fields (the history and each pass's answer).
type loopRecord struct {
	Result    *loopnode.Result  `json:"result"`
	PastLoops []agents.PastLoop `json:"past_loops,omitempty"`
	Answers   []string          `json:"answers,omitempty"`
}

// loopRecords are the typed results of res's top-level loops, by output id,
// as JSON; nil when it has none.
func loopRecords(res *cogloop.Result) (json.RawMessage, error) {
	loops := map[string]loopRecord{}
	res.Outputs.Each(func(id string, o agents.Output) bool {
		if l, ok := o.Typed.(*loopnode.Result); ok && l != nil {
			lr := loopRecord{Result: l, PastLoops: l.PastLoops}
			for _, it := range l.Iterations {
				lr.Answers = append(lr.Answers, it.Answer)
			}
			loops[id] = lr
		}
		return true
	})
	if len(loops) == 0 {
		return nil, nil
	}
	return json.Marshal(loops)
}

// readLoopRecords reads Record.LoopResults back into typed loop results.
func readLoopRecords(raw json.RawMessage) (map[string]*loopnode.Result, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var recs map[string]loopRecord
	if err := json.Unmarshal(raw, &recs); err != nil {
		return nil, fmt.Errorf("read the loops' results: %w", err)
	}
	out := make(map[string]*loopnode.Result, len(recs))
	for id, lr := range recs {
		if lr.Result == nil {
			continue
		}
		r := lr.Result
		r.PastLoops = lr.PastLoops
		r.BestAnswer = agents.Plain(r.BestAnswer)
		for i := range r.Iterations {
			if i < len(lr.Answers) {
				r.Iterations[i].Answer = lr.Answers[i]
			}
		}
		out[id] = r
	}
	return out, nil
}
