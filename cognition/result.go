package cognition

import ()

// Result is one agent's result in an iteration, in OrKa's shape: Value is a
// string, or a map[string]any such as {"response": …, "confidence": …,
// "internal_reasoning": …} or an error record {"result": nil, "status": "error",
// "error": …}. Numbers (and numeric strings) are read by direct_key strategies;
// other maps with string keys are accepted and read like map[string]any.
//
// An iteration is a []Result in execution order. OrKa keys the iteration by agent
// id, so a repeated id keeps its first position and takes the last value.
type Result struct {
	ID    string
	Value any
}

// Dedupe applies OrKa's dict semantics to repeated ids: first position, last
// value. It returns results itself when no id repeats.
func Dedupe(results []Result) []Result {
	dup := false
	for i := 1; i < len(results) && !dup; i++ {
		for j := 0; j < i; j++ {
			if results[i].ID == results[j].ID {
				dup = true
				break
			}
		}
	}
	if !dup {
		return results
	}
	out := make([]Result, 0, len(results))
	pos := make(map[string]int, len(results))
	for _, r := range results {
		if i, ok := pos[r.ID]; ok {
			out[i].Value = r.Value
			continue
		}
		pos[r.ID] = len(out)
		out = append(out, r)
	}
	return out
}
