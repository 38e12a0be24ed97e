package cognition

import (
	"encoding/json"
	"math"

	"github.com/cogloop/cogloop/internal/values"
)

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

// textFields are the mapping fields scanned for text, in OrKa's order.
var textFields = [...]string{"response", "result", "output", "data"}

// dedupe applies OrKa's dict semantics to repeated ids: first position, last
// value. It returns results itself when no id repeats.
func dedupe(results []Result) []Result {
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

// find returns the index of id in results, or -1.
func find(results []Result, id string) int {
	for i := range results {
		if results[i].ID == id {
			return i
		}
	}
	return -1
}

// textOf is [values.Text]: cogloop's counterpart of Python's str().
func textOf(v any) string { return values.Text(v) }

// number reads a numeric result value as a score under scale: Go numbers (not
// bool) as bare numbers, strings and json.Number as texts ([ParseScore]'s
// forms). nil when v is no number.
func number(v any, scale int) *reading {
	switch x := v.(type) {
	case string:
		return parseReading(x, scale)
	case json.Number:
		return parseReading(x.String(), scale)
	}
	f, ok := rawNumber(v)
	if !ok {
		return nil
	}
	r := bare(f, scale)
	return &r
}

// rawNumber returns a finite Go number (not bool, not a string) as float64.
func rawNumber(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
