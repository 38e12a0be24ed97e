package loopnode

import "github.com/cogloop/cogloop/agents/spend"

// Result is a loop's outcome as a Go value. The loop puts it in its output
// ([agents.Output.Typed]) next to the fields templates see, both made from the
// same state; Go callers (the façade's Result.Loops, the CLI summary) read it
// and never decode the fields, so an agent whose reply happens to hold keys
// named like a loop's is never taken for one.
type Result struct {
	LoopsCompleted int         `json:"loops_completed"`
	FinalScore     float64     `json:"final_score"`
	BestScore      float64     `json:"best_score"`
	BestIteration  int         `json:"best_iteration"`
	ThresholdMet   bool        `json:"threshold_met"`
	StopReason     string      `json:"stop_reason"`
	Error          string      `json:"error,omitempty"`
	Iterations     []Iteration `json:"iterations,omitempty"`
	Usage          spend.Usage `json:"usage"`
}

// Iteration is one pass of a loop, including one cut short.
type Iteration struct {
	Number     int         `json:"number"`
	Score      float64     `json:"score"`
	ScoreFound bool        `json:"score_found"`
	Completed  bool        `json:"completed"`
	Usage      spend.Usage `json:"usage"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// result is the typed outcome of st.
func (n *Node) result(st *state, completed int) *Result {
	r := &Result{LoopsCompleted: completed, FinalScore: st.score, BestScore: st.best, BestIteration: st.bestIter,
		ThresholdMet: st.reason == StopThreshold, StopReason: st.reason, Error: st.errText, Usage: st.usage}
	for _, it := range st.iterations {
		r.Iterations = append(r.Iterations, Iteration{Number: it.LoopNumber, Score: it.Score, ScoreFound: it.ScoreFound,
			Completed: !it.Cut, Usage: it.Usage, Warnings: it.Warnings})
	}
	return r
}
