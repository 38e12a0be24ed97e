package loopnode

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

// StopReason says why a loop ended. The Stop constants are its values
// (StopThreshold, StopMaxLoops, StopTimeout, StopCanceled, StopError,
// StopBudget, StopCondition, ...). They are untyped constants, so they
// compare and assign with a StopReason and with the plain strings of
// events and template fields alike; in an interface comparison (a test's
// assert.Equal) convert them: loopnode.StopReason(loopnode.StopThreshold).
type StopReason string

// Result is a loop's outcome as a Go value. The loop puts it in its output
// ([agents.Output.Typed]) next to the fields templates see, both made from the
// same state; Go callers (the façade's Result.Loops, the CLI summary) read it
// and never decode the fields, so an agent whose reply happens to hold keys
// named like a loop's is never taken for one. A loop stopped by a
// cancellation, a deadline or a fatal error returns one too, with the passes
// it completed.
type Result struct {
	LoopsCompleted int         `json:"loops_completed"`
	FinalScore     float64     `json:"final_score"`
	BestScore      float64     `json:"best_score"`
	BestIteration  int         `json:"best_iteration"`
	ThresholdMet   bool        `json:"threshold_met"`
	StopReason     StopReason  `json:"stop_reason"`
	Error          string      `json:"error,omitempty"`
	Iterations     []Iteration `json:"iterations,omitempty"`
	Usage          spend.Usage `json:"usage"`
	// PastLoops is the history the loop ended with (persisted entries of
	// earlier runs first), as typed entries of the past_loops templates see.
	// A checkpoint does not store it twice: restoring reads it from the
	// output's past_loops field (see restored).
	PastLoops []agents.PastLoop `json:"-"`
	// BestAnswer is the answer of the best-scored pass whose answer did not
	// fail (nil when no pass completed).
	BestAnswer any `json:"best_answer,omitempty"`
}

// Iteration is one pass of a loop, including one cut short.
type Iteration struct {
	Number     int         `json:"number"`
	Score      float64     `json:"score"`
	ScoreFound bool        `json:"score_found"`
	Completed  bool        `json:"completed"`
	Usage      spend.Usage `json:"usage"`
	Warnings   []string    `json:"warnings,omitempty"`
	// Answer is the pass's answer text, cut to the loop's max_length (like
	// PastLoops, restored from the output's iterations field).
	Answer string `json:"-"`
}

// result is the typed outcome of st.
func (n *Node) result(st *state, completed int) *Result {
	r := &Result{LoopsCompleted: completed, FinalScore: st.score, BestScore: st.best, BestIteration: st.bestIter,
		ThresholdMet: st.reason == StopThreshold, StopReason: StopReason(st.reason), Error: st.errText, Usage: st.usage}
	for _, it := range st.iterations {
		r.Iterations = append(r.Iterations, Iteration{Number: it.LoopNumber, Score: it.Score, ScoreFound: it.ScoreFound,
			Completed: !it.Cut, Usage: it.Usage, Warnings: it.Warnings, Answer: it.Response})
	}
	if len(st.past) > 0 {
		r.PastLoops = make([]agents.PastLoop, len(st.past))
		for i, e := range st.past {
			r.PastLoops[i] = agents.ReadPastLoop(e)
		}
	}
	best := st.answered.best
	if best == nil {
		best = st.bestOuts
	}
	if best != nil {
		r.BestAnswer = n.answer(best)
	}
	return r
}

// restored is r, read from a checkpoint, with what the checkpoint keeps only
// in the output's fields: the history and each pass's answer.
func (r *Result) restored(fields map[string]any) *Result {
	if past, ok := fields["past_loops"].([]any); ok && len(past) > 0 {
		r.PastLoops = make([]agents.PastLoop, 0, len(past))
		for _, e := range past {
			if m, ok := e.(map[string]any); ok {
				r.PastLoops = append(r.PastLoops, agents.ReadPastLoop(m))
			}
		}
	}
	if its, ok := fields["iterations"].([]any); ok && len(its) == len(r.Iterations) {
		for i, it := range its {
			if m, ok := it.(map[string]any); ok {
				r.Iterations[i].Answer, _ = m["response"].(string)
			}
		}
	}
	return r
}
