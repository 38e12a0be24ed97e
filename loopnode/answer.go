package loopnode

import (
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
)

// codeAnswerFailed is the warning when the pass return: names has a failed
// answer and the loop returns an earlier (or a lower-scored) pass.
const codeAnswerFailed = "answer_failed"

// answered keeps the latest and the best pass whose answer did not fail: a
// pass whose answer agent failed is never the loop's answer.
type answered struct {
	last, best         *agents.Outputs
	lastPass, bestPass int
	bestScore          float64
}

// note records pass's outputs if its answer did not fail.
func (a *answered) note(n *Node, pass int, outs *agents.Outputs, score float64) {
	if n.answerFailed(outs) {
		return
	}
	a.last, a.lastPass = outs, pass
	if a.bestPass == 0 || score > a.bestScore {
		a.best, a.bestPass, a.bestScore = outs, pass, score
	}
}

// answerFailed reports whether the agent the pass's answer comes from failed:
// output_agent, else (no agent answered) any agent of the pass.
func (n *Node) answerFailed(outs *agents.Outputs) bool {
	if outs == nil {
		return false
	}
	if n.outputAgent != "" {
		o, ok := outs.Get(n.outputAgent)
		return ok && o.Failed()
	}
	if agents.Text(n.answer(outs)) != "" {
		return false
	}
	failed := false
	outs.Each(func(_ string, o agents.Output) bool {
		failed = o.Failed()
		return !failed
	})
	return failed
}

// returned is the pass the loop returns (its outputs and number) under
// return:, and the pass return: named when its answer failed (else 0).
func (n *Node) returned(st *state) (outs *agents.Outputs, pass, failedPass int) {
	outs, pass = st.last, st.lastPass
	switch {
	case n.best && st.bestOuts != nil:
		outs, pass = st.bestOuts, st.bestIter
	case n.lastSuccessful && st.lastOK != nil:
		outs, pass = st.lastOK, st.lastOKPass
	}
	if !n.answerFailed(outs) {
		return outs, pass, 0
	}
	switch {
	case n.best && st.answered.best != nil:
		return st.answered.best, st.answered.bestPass, pass
	case st.answered.last != nil:
		return st.answered.last, st.answered.lastPass, pass
	}
	return outs, pass, pass
}

// checkAnswer says what returned's choice means for the run: a warning
// (answer_failed) when another pass answers for a failed one, an error when
// no pass has an answer. Under --strict the warning is an error.
func (n *Node) checkAnswer(in agents.Input, st *state) error {
	_, pass, failedPass := n.returned(st)
	if failedPass == 0 {
		return nil
	}
	who := "its agents"
	if n.outputAgent != "" {
		who = fmt.Sprintf("agent %q", n.outputAgent)
	}
	if pass == failedPass {
		var msgs []string
		for _, it := range st.iterations {
			for _, e := range it.Errors {
				msgs = append(msgs, e.Message)
			}
		}
		if len(msgs) > 3 {
			msgs = append(msgs[:3], fmt.Sprintf("and %d more", len(msgs)-3))
		}
		return fault.AtPath(in.Path, fmt.Errorf("no pass has an answer: %s failed in every pass that ran (%s)", who, strings.Join(msgs, "; ")))
	}
	msg := fmt.Sprintf("the answer of pass %d (%s) failed: the loop returns pass %d's answer", failedPass, who, pass)
	if n.outputAgent != "" {
		msg = fmt.Sprintf("the answer of pass %d failed (agent %q): the loop returns pass %d's answer", failedPass, n.outputAgent, pass)
	}
	return in.Run.Warn(event.Event{Node: in.Path, Agent: n.id, Type: "loop", Message: msg,
		Data: map[string]any{"code": codeAnswerFailed, "loop": n.id, "pass": failedPass, "returned": pass}})
}

// budgetRefused records pass it, in which the budget refused a model call, as
// not completed: the loop stops with stop_reason budget and returns the last
// completed pass (or the best, under return: best).
func (n *Node) budgetRefused(in agents.Input, st *state, it iteration, outs *agents.Outputs) (stop, cut bool) {
	it.Cut = true
	for _, f := range failures(outs) {
		it.Errors = append(it.Errors, agentError{Agent: f.agent, Message: f.message})
	}
	if len(it.Errors) == 0 {
		it.Errors = []agentError{{Message: "a model call did not fit the budget"}}
	}
	st.iterations = append(st.iterations, it)
	st.reason = StopBudget
	in.Run.Emit(event.Event{Kind: event.LoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Data: map[string]any{"loop_number": it.LoopNumber, "max_loops": n.maxLoops,
			"completed": false, "stop": true, "kind": n.kind,
			"conditions": resultsValue([]condResult{{Kind: StopBudget, Fired: true, Detail: "a model call did not fit the budget"}})}})
	return true, true
}
