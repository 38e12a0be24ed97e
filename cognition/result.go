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
// value. It returns results itself when no id repeats. It is linear in
// len(results): a set of the ids seen (a scan of the few before each id
// while there are at most dedupeScan).
func Dedupe(results []Result) []Result {
	if len(results) <= dedupeScan {
		for i := 1; i < len(results); i++ {
			for j := range i {
				if results[i].ID == results[j].ID {
					return dedupeFrom(results, i, nil)
				}
			}
		}
		return results
	}
	pos := make(map[string]int, len(results))
	for i, r := range results {
		if _, dup := pos[r.ID]; dup {
			return dedupeFrom(results, i, pos)
		}
		pos[r.ID] = i
	}
	return results
}

// dedupeScan is the length up to which Dedupe compares ids pairwise: cheaper
// than a map for the few agents of a usual pass.
const dedupeScan = 8

// dedupeFrom is Dedupe of results whose first repeated id is at i; pos, when
// not nil, holds the positions of the ids before i.
func dedupeFrom(results []Result, i int, pos map[string]int) []Result {
	out := make([]Result, i, len(results))
	copy(out, results[:i])
	if pos == nil {
		pos = make(map[string]int, len(results))
		for j, r := range out {
			pos[r.ID] = j
		}
	}
	for _, r := range results[i:] {
		if j, ok := pos[r.ID]; ok {
			out[j].Value = r.Value
			continue
		}
		pos[r.ID] = len(out)
		out = append(out, r)
	}
	return out
}
