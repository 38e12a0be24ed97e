package loopnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/prompt"
)

// Stop reasons.
const (
	StopThreshold = "threshold"
	StopMaxLoops  = "max_loops"
	StopTimeout   = "timeout"
	StopCanceled  = "canceled"
	StopError     = "error"
)

// Node is a built loop. It is immutable.
type Node struct {
	id           string
	maxLoops     int
	threshold    float64
	inner        agents.Agent
	scorer       *cognition.Scorer
	extractor    *cognition.Extractor
	metas        []metaTemplate
	maxPastLoops int
	timeout      time.Duration
	outputAgent  string
	scoringCtx   any
	persistent   bool
	historyTTL   time.Duration // history_ttl: expiry of the persisted history; 0 never

	stop     *condition // stop_when; nil means the score threshold alone
	feedback string
	inputs   []inputMapping
	outputs  []outputMapping
	best     bool // return: best
	delay    time.Duration
	budget   agents.Limit // budget: on the loop
	budgeted bool

	regexBudget  time.Duration // regex_budget: the regex time of one pass's score and lesson patterns
	scoreMatters bool          // a pass without a score is worth a warning
}

var _ agents.Agent = (*Node)(nil)

var errLoopTimeout = errors.New("loop timeout")

// DefaultMaxTotalIterations bounds the iterations of all loops of one run
// together, so nested loops cannot multiply into runaway cost.
const DefaultMaxTotalIterations = 10_000

// StopTotalIterations is the stop reason when the run's iteration ceiling is reached.
const StopTotalIterations = "max_total_iterations"

// StopBudget is the stop reason when a model call was refused by a budget.
const StopBudget = "budget"

// iteration is what the output reports for one pass.
type iteration struct {
	LoopNumber  int           `json:"loop_number"`
	Score       float64       `json:"score"`
	ScoreFound  bool          `json:"score_found"`
	ScoreSource string        `json:"score_source,omitempty"`
	Duration    time.Duration `json:"duration_ns"`
	Usage       agents.Usage  `json:"usage"`
	Warnings    []string      `json:"warnings,omitempty"`
}

// usageValue is a usage as outputs and events show it.
func usageValue(u agents.Usage) map[string]any {
	m := map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens}
	if u.Cost > 0 {
		m["cost"] = u.Cost
	}
	return m
}

func (it iteration) Map() map[string]any {
	m := map[string]any{
		"loop_number": it.LoopNumber,
		"score":       it.Score,
		"score_found": it.ScoreFound,
		"duration_ms": float64(it.Duration.Microseconds()) / 1000,
		"usage":       usageValue(it.Usage),
	}
	if it.ScoreSource != "" {
		m["score_source"] = it.ScoreSource
	}
	if len(it.Warnings) > 0 {
		ws := make([]any, len(it.Warnings))
		for i, w := range it.Warnings {
			ws[i] = w
		}
		m["warnings"] = ws
	}
	return m
}

// state is one run's mutable state.
type state struct {
	past       []map[string]any
	iterations []iteration
	last       *agents.Outputs
	bestOuts   *agents.Outputs
	score      float64
	best       float64
	bestIter   int
	usage      agents.Usage
	reason     string
	errText    string
	start      time.Time
	input      any // the next iteration's input (feedback)

	answers    []string          // hashes of normalised answers, for stagnation
	bests      []float64         // best score after each iteration
	stablePrev map[string]string // stable_output: last output per agent
	stableNext map[string]string // ... this iteration's
	mapped     map[string][]any  // output mappings' value per iteration

	// checkpointing (persist.go)
	input0     any              // the loop's input before feedback
	past0      []map[string]any // history loaded from the store
	startSaved bool             // the #start record is saved
	pending    []savedPass      // records of passes not saved yet
	lastPass   int              // the pass whose outputs are last
	unfinished bool             // the pass failed (an error, the store): a resume runs it again
	wait       time.Duration    // after a resume: the rest of the delay
	waitSet    bool
}

// Run iterates the internal workflow until a stop condition holds.
func (n *Node) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if n.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, n.timeout, errLoopTimeout)
		defer cancel()
	}
	// The loop's own scope (limited by budget:, else only counting) tells it
	// whether a call inside it was refused.
	in.Budget = in.Budget.ChildAt(checkpointKey(in, n.id), n.budget)
	task := unwrapInput(in.Value)
	parent := in.Previous.Map()
	st := &state{start: time.Now(), input: task, stablePrev: map[string]string{}, stableNext: map[string]string{}}
	loops, err := n.restore(ctx, in, st)
	if err != nil {
		return agents.Output{}, err
	}
	in.Run.Emit(agents.Event{Kind: agents.EventLoopStart, Node: in.Path, Agent: n.id, Type: "loop",
		Data: map[string]any{"max_loops": n.maxLoops, "threshold": n.threshold, "resumed_after": loops, "history": len(st.past)}})

	for st.reason == "" && loops < n.maxLoops {
		if loops > 0 {
			if err := sleep(ctx, n.pause(st)); err != nil {
				st.reason = n.ctxReason(ctx)
				break
			}
		}
		if err := ctx.Err(); err != nil {
			st.reason = n.ctxReason(ctx)
			break
		}
		if n.checkBefore(in, st, loops+1) {
			break
		}
		if !n.takeIteration(in) {
			st.reason = StopTotalIterations
			st.errText = fmt.Sprintf("the run reached its ceiling of %d loop iterations (max_total_iterations)", maxTotal(in))
			break
		}
		loops++
		done := n.iterate(ctx, in, parent, loops, st)
		if st.reason != StopCanceled && st.reason != StopTimeout {
			n.save(context.WithoutCancel(ctx), in, st, loops)
		}
		if done {
			break
		}
	}
	if st.reason == "" {
		st.reason = StopMaxLoops
		n.save(context.WithoutCancel(ctx), in, st, loops)
	}
	out := n.output(in, st, loops)
	in.Run.Emit(agents.Event{Kind: agents.EventLoopEnd, Node: in.Path, Agent: n.id, Type: "loop", Error: st.errText,
		Data: map[string]any{"loops_completed": loops, "stop_reason": st.reason, "final_score": st.score,
			"best_score": st.best, "best_iteration": st.bestIter, "usage": usageValue(st.usage)}})
	if st.reason == StopCanceled {
		return out, agents.AtPath(in.Path, context.Cause(ctx))
	}
	return out, nil
}

type totalKey struct{}

// maxTotal is the run's ceiling on loop iterations.
func maxTotal(in agents.Input) int {
	if in.Run != nil && in.Run.MaxTotalIterations > 0 {
		return in.Run.MaxTotalIterations
	}
	return DefaultMaxTotalIterations
}

// takeIteration counts one iteration against the run's ceiling.
func (n *Node) takeIteration(in agents.Input) bool {
	if in.Run == nil {
		return true
	}
	return totalCounter(in).Add(1) <= int64(maxTotal(in))
}

// checkBefore evaluates the check: before conditions ahead of iteration next; it
// reports whether the loop stops.
func (n *Node) checkBefore(in agents.Input, st *state, next int) bool {
	if n.stop == nil || !n.stop.hasBefore() {
		return false
	}
	env := &condEnv{outputs: st.last, st: st, score: st.score, evaluated: st.last != nil}
	env.data = n.condData(in, st, next, st.last)
	var rs []condResult
	fired, reason := n.stop.eval(env, true, &rs)
	in.Run.Emit(agents.Event{Kind: agents.EventLoopCheck, Node: in.Path, Agent: n.id, Type: "loop",
		Data: map[string]any{"before_iteration": next, "conditions": resultsValue(rs), "stop": fired}})
	if fired {
		st.reason = reason
	}
	return fired
}

func resultsValue(rs []condResult) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r.Map()
	}
	return out
}

// condData is what condition expressions see: the iteration's outputs as
// previous_outputs (a JSON object in a response also shows its keys), the loop
// variables, score, best_score and past_loops.
func (n *Node) condData(in agents.Input, st *state, loop int, outs *agents.Outputs) prompt.Data {
	prev := make(map[string]any, outs.Len())
	outs.Each(func(id string, o agents.Output) bool {
		m := o.Map()
		for k, v := range responseObject(o) {
			if _, taken := m[k]; !taken {
				m[k] = v
			}
		}
		prev[id] = m
		return true
	})
	vars := n.iterationVars(in, st, loop, st.input, nil)
	vars["score"] = st.score
	vars["best_score"] = st.best
	vars["past_loops"] = pastLoopsValue(st.past)
	return prompt.Data{Input: st.input, Previous: prev, PreviousOrder: outs.IDs(), LoopNumber: loop, Vars: vars}
}

// iterate runs pass number loop; it reports whether the loop must stop.
func (n *Node) iterate(ctx context.Context, in agents.Input, parent map[string]any, loop int, st *state) bool {
	if loop > 1 {
		next, err := n.nextInput(st.input, st)
		if err != nil {
			st.reason, st.errText = StopError, agents.AtPath(in.Path, err).Error()
			return true
		}
		st.input = next
	}
	meta := dynamicMetadata(n.metas, st.past)
	prev := make(map[string]any, len(parent)+1)
	for k, v := range parent {
		prev[k] = v
	}
	prev["past_loops"] = pastLoopsValue(st.past)
	wrapper := map[string]any{
		"input":               st.input,
		"previous_outputs":    prev,
		"loop_number":         loop,
		"scoring_context":     n.scoringCtx,
		"past_loops_metadata": meta,
	}
	path := agents.JoinPath(in.Path, fmt.Sprintf("iteration %d", loop))
	start := time.Now()
	out, err := n.inner.Run(ctx, agents.Input{
		Value:  wrapper,
		Loop:   &agents.LoopState{Number: loop, PastLoops: st.past, Metadata: meta, Score: st.score},
		Vars:   n.iterationVars(in, st, loop, st.input, parent),
		Path:   path,
		Run:    in.Run,
		Budget: in.Budget,
	})
	st.usage = st.usage.Add(out.Usage)
	if err != nil {
		if ctx.Err() != nil {
			st.reason = n.ctxReason(ctx)
		} else {
			st.reason = StopError
			st.errText = agents.AtPath(path, err).Error()
			st.unfinished = true
		}
		return true
	}

	results := toResults(out.Children)
	sc, lessons, judged := n.judge(ctx, results)
	it := iteration{LoopNumber: loop, Score: sc.Value, ScoreFound: sc.Found, ScoreSource: sc.Source,
		Duration: time.Since(start), Usage: out.Usage}
	entry, warns := buildEntry(n.metas, entryContext{
		loop: loop, score: sc.Value,
		reasoningQuality: cognition.ReasoningQuality(results), convergenceTrend: cognition.ConvergenceTrend(results),
		timestamp: now(), input: truncateInput(st.input),
		insights: lessons.Insights, improvements: lessons.Improvements, mistakes: lessons.Mistakes,
		other: lessons.Other,
	})
	judged = append(judged, metadataWarnings(warns)...)
	it.Warnings = cognition.Messages(judged)
	if err := n.warnPass(in, path, loop, sc, judged); err != nil {
		st.reason, st.errText = StopError, err.Error()
		return true
	}
	if n.persistent {
		// The iteration's work is done: persist it even if the run is being
		// canceled right now (the store bounds the wait).
		if err := n.appendHistory(context.WithoutCancel(ctx), in, loop, entry); err != nil {
			st.reason, st.errText, st.unfinished = StopError, agents.AtPath(path, err).Error(), true
			return true
		}
	}
	st.past = append(st.past, entry)
	if len(st.past) > n.maxPastLoops {
		st.past = st.past[len(st.past)-n.maxPastLoops:]
	}
	st.iterations = append(st.iterations, it)
	st.last, st.score = out.Children, sc.Value
	if st.bestIter == 0 || sc.Value > st.best {
		st.best, st.bestIter, st.bestOuts = sc.Value, loop, out.Children
	}
	recordPass(st, out.Children, n.answer(out.Children))
	n.recordMappings(st, out.Children, loop)
	n.notePass(in, st, out.Children)

	stop, reason, rs := n.checkAfter(in, st, loop, sc.Value)
	if in.Budget.Exceeded() {
		// A call was refused: the pass is incomplete and the next would be too.
		stop, reason = true, StopBudget
		rs = append(rs, condResult{Kind: StopBudget, Fired: true, Detail: "a model call did not fit the budget"})
	}
	in.Run.Emit(agents.Event{Kind: agents.EventLoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Data: map[string]any{"loop_number": loop, "max_loops": n.maxLoops,
			"score": sc.Value, "score_found": sc.Found, "best": st.best, "threshold": n.threshold,
			"conditions": resultsValue(rs), "stop": stop}})
	if stop {
		st.reason = reason
	}
	return stop
}

// checkAfter evaluates the stop conditions after iteration loop.
func (n *Node) checkAfter(in agents.Input, st *state, loop int, score float64) (bool, string, []condResult) {
	if n.stop == nil {
		fired := score >= n.threshold
		return fired, StopThreshold, []condResult{{Kind: condScore, Fired: fired,
			Detail: fmt.Sprintf("score %g, threshold %g", score, n.threshold)}}
	}
	env := &condEnv{outputs: st.last, st: st, score: score, evaluated: true}
	env.data = n.condData(in, st, loop, st.last)
	var rs []condResult
	fired, reason := n.stop.eval(env, false, &rs)
	st.stablePrev, st.stableNext = st.stableNext, map[string]string{}
	return fired, reason, rs
}

func (n *Node) ctxReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), errLoopTimeout) {
		return StopTimeout
	}
	return StopCanceled
}

// unwrapInput is §1.3's one-level unwrap: a mapping with an "input" key gives that value.
func unwrapInput(v any) any {
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["input"]; ok {
			return inner
		}
	}
	return v
}

func truncateInput(v any) string {
	s := pyStr(v)
	if len(s) > 200 {
		return agents.Truncate(s, 200)[:len(agents.Truncate(s, 200))-len("…")] + "...<truncated>"
	}
	return s
}

// pastLoopsValue is the history as templates see it: a fresh list, so later
// appends never show through a list a template or output already holds.
func pastLoopsValue(past []map[string]any) []any {
	out := make([]any, len(past))
	for i, e := range past {
		out[i] = e
	}
	return out
}

// toResults turns an iteration's outputs into the scanner's input, in run order.
func toResults(outs *agents.Outputs) []cognition.Result {
	res := make([]cognition.Result, 0, outs.Len())
	outs.Each(func(id string, o agents.Output) bool {
		res = append(res, cognition.Result{ID: id, Value: o.Map()})
		return true
	})
	return res
}
