package loopnode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/workers"
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
	scorer       *scorer.Scorer
	extractor    *cognition.Extractor
	metas        []metaTemplate
	orders       orders // key orders templates see the loop's values in (order.go)
	maxPastLoops int
	// historyBudget selects the history the prompts see (past_loops_budget).
	historyBudget historyBudget
	timeout       time.Duration
	outputAgent   string
	scoringCtx    any
	persistent    bool
	historyTTL    time.Duration // history_ttl: expiry of the persisted history; 0 never
	historyKey    string        // history_key: the persisted history's id, shared on purpose; "" scopes it by workflow

	stop *condition // stop_when; nil means the score threshold alone
	// sameAnswer: stop_when compares answers (stagnation's repeats), so each
	// pass's answer is normalised and hashed; without it nothing reads them.
	sameAnswer bool

	loopNamesOnce sync.Once
	loopNames     [len(loopVarNames)][4]string // see loopVarNames
	feedback      string
	inputs        []inputMapping
	outputs       []outputMapping
	best          bool // return: best
	delay         time.Duration
	budget        spend.Limit // budget: on the loop
	budgeted      bool

	regexBudget  time.Duration // regex_budget: the regex time of one pass's score and lesson patterns
	scoreMatters bool          // a pass without a score is worth a warning

	stopOnError bool // on_error: stop
	maxFailed   int  // max_failed_passes

	// issue 17 (round 2 of the loop controls)
	iterTimeout    time.Duration   // iteration_timeout: the time one pass may take; 0 none
	vars           []loopVar       // vars: loop state variables
	updates        []varUpdate     // update: their templates, in order
	declared       []declaredInput // inputs: the declared loop interface
	declaredOuts   []string        // outputs: names the output carries
	maxLength      int             // max_length: iterations[i].response is cut to it
	lastSuccessful bool            // return: last_successful
	kind           string          // the loop kind events name (threshold, until, while, ...)
	retry          *retry.Retrier  // retry: a failed pass runs again under it; nil none
	failOn         []string        // fail_on: stop reasons that fail the run

	metaFunc func(Pass) map[string]any // Config.MetadataFunc
	until    func(Pass) bool           // Config.Until
}

var _ agents.Agent = (*Node)(nil)

var (
	errLoopTimeout = errors.New("loop timeout")
	errPassTimeout = errors.New("iteration_timeout")
)

// DefaultMaxLength bounds iterations[i].response without max_length.
const DefaultMaxLength = 2000

// previewLength bounds the previews in loop.pass.start and loop.iteration.
const previewLength = 200

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
	Response    string        `json:"response,omitempty"` // the pass's answer, cut to max_length
	Score       float64       `json:"score"`
	ScoreFound  bool          `json:"score_found"`
	ScoreSource string        `json:"score_source,omitempty"`
	Duration    time.Duration `json:"duration_ns"`
	Usage       spend.Usage   `json:"usage"`
	Warnings    []string      `json:"warnings,omitempty"`
	// Cut marks a pass that did not run to the end (timeout, cancellation, a
	// fatal error, a feedback or persistence error): it is not counted in
	// loops_completed and has no score.
	Cut bool `json:"cut_short,omitempty"`
	// Attempts is how many times the pass ran under retry: (1 without).
	Attempts int `json:"attempts,omitempty"`
	// TimedOut marks a pass cut short by iteration_timeout: on_error decides
	// what follows, and it counts as a failed pass for max_failed_passes.
	TimedOut bool `json:"timed_out,omitempty"`
	// Errors are the pass's failed agents (or, for a cut pass, what cut it).
	Errors []agentError `json:"errors,omitempty"`
}

// agentError is one failed agent of a pass.
type agentError struct {
	Agent   string `json:"agent,omitempty"`
	Message string `json:"message"`
}

// usageValue is a usage as outputs and events show it.
func usageValue(u spend.Usage) map[string]any {
	m := map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens}
	if u.Cost > 0 {
		m["cost"] = u.Cost
	}
	return m
}

// lessonsValue is a pass's extracted lessons for its loop.iteration event (run
// records and reports show them): the categories that found something, nil
// when none did.
func lessonsValue(x cognition.Extraction) map[string]any {
	m := map[string]any{}
	for k, v := range map[string]string{"insights": x.Insights, "improvements": x.Improvements, "mistakes": x.Mistakes} {
		if v != "" {
			m[k] = v
		}
	}
	for k, v := range x.Other {
		if v != "" {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func (it iteration) Map() map[string]any {
	size := 7 // the keys below, and the optional ones present: a map of more than eight is larger
	for _, present := range [...]bool{len(it.Errors) > 0, it.ScoreSource != "", it.TimedOut, len(it.Warnings) > 0} {
		if present {
			size++
		}
	}
	m := make(map[string]any, size)
	m["loop_number"] = it.LoopNumber
	m["response"] = it.Response
	m["completed"] = !it.Cut
	m["score"] = it.Score
	m["score_found"] = it.ScoreFound
	m["duration_ms"] = float64(it.Duration.Microseconds()) / 1000
	m["usage"] = usageValue(it.Usage)
	if len(it.Errors) > 0 {
		es := make([]any, len(it.Errors))
		for i, e := range it.Errors {
			em := map[string]any{"message": e.Message}
			if e.Agent != "" {
				em["agent"] = e.Agent
			}
			es[i] = em
		}
		m["errors"] = es
	}
	if it.ScoreSource != "" {
		m["score_source"] = it.ScoreSource
	}
	if it.TimedOut {
		m["timed_out"] = true
	}
	if it.Attempts > 1 {
		m["attempts"] = it.Attempts
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
	wrapOrder  *pyvalue.Order // the key order templates see a pass's wrapper in (order.go)
	past       []map[string]any
	iterations []iteration
	last       *agents.Outputs
	bestOuts   *agents.Outputs
	score      float64
	best       float64
	bestIter   int
	usage      spend.Usage
	reason     string
	errText    string
	fatal      error // a fatal error that cut a pass short: the loop returns it
	interrupt  error // a human step waits, or a pause: the loop returns it (pause.go)
	start      time.Time
	input      any // the next iteration's input (feedback)

	answers    []string          // hashes of normalised answers, for stagnation
	bests      []float64         // best score after each iteration
	stablePrev map[string]string // stable_output: last output per agent (nil until one is kept)
	stableNext map[string]string // ... this iteration's
	mapped     map[string][]any  // output mappings' value per iteration
	vars       map[string]any    // loop state variables (vars:/update:); nil before the first update
	varsBase   map[string]any    // what iterationVars copies
	passVars   map[string]any    // the passes' Vars, set in place (see passVars)
	lastAnswer any               // n.answer(answerOf): loop_result of the next pass
	answerOf   *agents.Outputs
	bound      map[string]any  // declared inputs (inputs:) bound at the start
	lastOK     *agents.Outputs // return: last_successful: the last pass whose answer agent did not fail
	lastOKPass int
	answered   answered // the latest and the best pass whose answer did not fail (answer.go)
	mappedPass []int    // the pass of each value in mapped

	// checkpointing (persist.go)
	input0     any               // the loop's input before feedback
	past0      []json.RawMessage // history loaded from the store, as stored
	startSaved bool              // the #start record is saved
	pending    []savedPass       // records of passes not saved yet
	lastPass   int               // the pass whose outputs are last
	unfinished bool              // the pass failed (an error, the store): a resume runs it again
	wait       time.Duration     // after a resume: the rest of the delay
	waitSet    bool
}

// Run iterates the internal workflow until a stop condition holds.
func (n *Node) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if n.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, n.timeout, errLoopTimeout)
		defer cancel()
	}
	if workers.From(ctx) == nil {
		// Fork branches inside the loop run on goroutines kept from pass to
		// pass (their stacks stay grown); none outlives Run.
		pool := &workers.Pool{}
		defer pool.Close()
		ctx = workers.With(ctx, pool)
	}
	// The loop's own scope (limited by budget:, else only counting) tells it
	// whether a call inside it was refused.
	in.Budget = in.Budget.ChildAt(checkpointKey(in, n.id), n.budget)
	task := unwrapInput(in.Value)
	parent := in.Previous.Map()
	st := &state{start: time.Now(), input: task, wrapOrder: n.passWrapperOrder(in.Previous)}
	loops, err := n.restore(ctx, in, st)
	if err != nil {
		return agents.Output{}, err
	}
	if st.iterations == nil {
		st.iterations = make([]iteration, 0, min(n.maxLoops, 32))
	}
	if st.bound, err = n.bindInputs(task); err != nil {
		err = fault.AtPath(in.Path, err)
		st.reason, st.errText = StopError, err.Error()
		in.Run.Emit(event.Event{Kind: event.LoopEnd, Node: in.Path, Agent: n.id, Type: "loop", Error: st.errText,
			Data: map[string]any{"loops_completed": 0, "stop_reason": st.reason}})
		return n.output(in, st, 0), err
	}
	if loops == 0 {
		st.input = n.withDefaults(st.input, st.bound)
		if err := n.initVars(in, st); err != nil {
			err = fault.AtPath(in.Path, err)
			st.reason, st.errText = StopError, err.Error()
			in.Run.Emit(event.Event{Kind: event.LoopEnd, Node: in.Path, Agent: n.id, Type: "loop", Error: st.errText,
				Data: map[string]any{"loops_completed": 0, "stop_reason": st.reason}})
			return n.output(in, st, 0), err
		}
	}
	if in.Run.Wanted(event.LoopStart) {
		in.Run.Emit(event.Event{Kind: event.LoopStart, Node: in.Path, Agent: n.id, Type: "loop",
			Data: map[string]any{"max_loops": n.maxLoops, "threshold": n.threshold, "resumed_after": loops, "history": len(st.past)}})
	}

	ran := 0 // passes this call ran: a continued run runs one before it pauses again
	for st.reason == "" && loops < n.maxLoops {
		if ran > 0 {
			if err := n.pauseAsked(ctx, in, loops); err != nil {
				return n.output(in, st, completedPasses(st.iterations)), err
			}
		}
		ran++
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
		if n.checkBefore(ctx, in, st, loops+1) {
			break
		}
		if !n.takeIteration(in) {
			st.reason = StopTotalIterations
			st.errText = fmt.Sprintf("the run reached its ceiling of %d loop iterations (max_total_iterations)", maxTotal(in))
			break
		}
		loops++
		// Another pass runs: the last one's outputs are kept to the end of the
		// run (last, best, last successful), the template maps its pass and
		// scan read are not needed any more (the result reads them again
		// only if it is not the last pass's).
		st.last.DropMaps()
		done, cut := n.iterate(ctx, in, parent, loops, st)
		if st.interrupt != nil {
			// The pass's finished steps were saved by its workflow; the
			// checkpoint stays at the pass before, so continuing runs this
			// pass again, taking those steps' outputs.
			return n.output(in, st, completedPasses(st.iterations)), st.interrupt
		}
		if !cut {
			// A checkpoint holds completed passes only: a resume runs a cut pass again.
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
	completed := completedPasses(st.iterations)
	// A loop whose answer failed in every pass fails the run (item 11 of
	// issue 32), as one that stopped with stop_reason error does.
	answerErr := n.checkAnswer(in, st)
	if answerErr != nil && st.reason != StopError {
		st.errText = answerErr.Error()
	} else {
		answerErr = nil
	}
	if why := n.failedBy(st.reason); why != "" && answerErr == nil {
		// fail_on: this stop fails the run
		answerErr = fault.AtPath(in.Path, errors.New(why))
		st.errText = answerErr.Error()
	}
	out := n.output(in, st, completed)
	end := map[string]any{"loops_completed": completed, "stop_reason": st.reason, "final_score": st.score,
		"best_score": st.best, "best_iteration": st.bestIter, "usage": usageValue(st.usage)}
	if answerErr != nil {
		end["failed"] = true
	}
	in.Run.Emit(event.Event{Kind: event.LoopEnd, Node: in.Path, Agent: n.id, Type: "loop", Error: st.errText, Data: end})
	switch {
	case st.reason == StopCanceled, st.reason == StopTimeout && ctx.Err() != nil && !errors.Is(context.Cause(ctx), errLoopTimeout):
		// The run was canceled or ran out of its deadline: the output keeps
		// the completed passes (the sequence records it) and the error stops the run.
		return out, fault.AtPath(in.Path, context.Cause(ctx))
	case st.fatal != nil:
		return out, st.fatal
	}
	return out, nil
}

// completedPasses counts the passes that ran to the end.
func completedPasses(its []iteration) int {
	n := 0
	for _, it := range its {
		if !it.Cut {
			n++
		}
	}
	return n
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
// Under feedback, the conditions see the input pass next will get.
func (n *Node) checkBefore(_ context.Context, in agents.Input, st *state, next int) bool {
	if n.stop == nil || !n.stop.hasBefore() {
		return false
	}
	input := st.input
	if next > 1 && n.feedback != feedbackNone {
		if v, err := n.nextInput(st.input, st); err == nil {
			input = v
		}
	}
	env := &condEnv{outputs: st.last, st: st, score: st.score, evaluated: st.last != nil}
	env.data = n.condData(in, st, next, st.last, input)
	var rs []condResult
	fired, reason, err := n.stop.eval(env, true, &rs)
	if err != nil {
		fired, reason = true, StopError
		st.errText = fault.AtPath(in.Path, err).Error()
	}
	if in.Run.Wanted(event.LoopCheck) {
		in.Run.Emit(event.Event{Kind: event.LoopCheck, Node: in.Path, Agent: n.id, Type: "loop",
			Data: map[string]any{"before_iteration": next, "conditions": resultsValue(rs), "stop": fired}})
	}
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
func (n *Node) condData(in agents.Input, st *state, loop int, outs *agents.Outputs, input any) prompt.Data {
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
	vars := n.iterationVars(in, st, loop, input, nil)
	vars["score"] = st.score
	vars["best_score"] = st.best
	vars["past_loops"] = pastLoopsValue(st.past)
	return prompt.Data{Input: input, Previous: prev, PreviousOrder: outs.IDs(), LoopNumber: loop, Vars: vars}
}

// iterate runs pass number loop; it reports whether the loop must stop and
// whether the pass was cut short (then it does not count).
func (n *Node) iterate(ctx context.Context, in agents.Input, parent map[string]any, loop int, st *state) (stop, cut bool) {
	path := "iteration " + strconv.Itoa(loop)
	if in.Path != "" {
		path = in.Path + fault.PathSep + path // one string: fault.JoinPath builds it in steps
	}
	start := time.Now()
	if loop > 1 {
		next, err := n.nextInput(st.input, st)
		if err != nil {
			n.cutShort(in, st, iteration{LoopNumber: loop}, StopError, fault.AtPath(path, err))
			return true, true
		}
		st.input = next
	}
	if in.Run.Wanted(event.LoopPassStart) {
		in.Run.Emit(event.Event{Kind: event.LoopPassStart, Node: in.Path, Agent: n.id, Type: "loop",
			Data: map[string]any{"loop_number": loop, "max_loops": n.maxLoops, "input_preview": fault.Truncate(previewText(st.input), previewLength)}})
	}
	passCtx := ctx
	if n.iterTimeout > 0 {
		var cancel context.CancelFunc
		passCtx, cancel = context.WithTimeoutCause(ctx, n.iterTimeout, errPassTimeout)
		defer cancel()
	}
	meta := dynamicMetadata(n.metas, st.past)
	prev := make(map[string]any, len(parent)+1)
	for k, v := range parent {
		prev[k] = v
	}
	seen, leftOut := n.historyBudget.selectPast(st.past)
	prev["past_loops"] = pastLoopsValue(seen)
	wrapper := map[string]any{
		"input":               st.input,
		"previous_outputs":    prev,
		"loop_number":         loop,
		"scoring_context":     n.scoringCtx,
		"past_loops_metadata": meta,
	}
	if n.historyBudget.on() {
		wrapper["past_loops_left_out"] = leftOut
	}
	out, attempts, err := n.runPass(passCtx, in, path, agents.Input{
		Value:  wrapper,
		Loop:   &agents.LoopState{Number: loop, PastLoops: seen, Metadata: meta, Score: st.score, Task: st.input, Order: st.wrapOrder},
		Vars:   n.passVars(in, st, loop, st.input, parent),
		Path:   path,
		Run:    in.Run,
		Budget: in.Budget,
	})
	st.usage = st.usage.Add(out.Usage)
	if ctx.Err() == nil && errors.Is(context.Cause(passCtx), errPassTimeout) {
		return n.passTimedOut(in, st, iteration{LoopNumber: loop, Duration: time.Since(start), Usage: out.Usage}, path)
	}
	if fault.AsInterrupt(err) != nil {
		st.interrupt = err
		return true, true
	}
	if err != nil {
		reason := StopError
		if ctx.Err() != nil {
			reason = n.ctxReason(ctx)
		}
		n.cutShort(in, st, iteration{LoopNumber: loop, Duration: time.Since(start), Usage: out.Usage}, reason, fault.AtPath(path, err))
		return true, true
	}

	if in.Budget.Exceeded() {
		// A call was refused: the pass is incomplete (its answer is not one)
		// and the next would be too.
		return n.budgetRefused(in, st, iteration{LoopNumber: loop, Duration: time.Since(start), Usage: out.Usage}, out.Children)
	}
	results := toResults(out.Children)
	sc, lessons, judged := n.judge(ctx, results)
	failed := failures(out.Children)
	answer := n.answer(out.Children)
	it := iteration{LoopNumber: loop, Score: sc.Value, ScoreFound: sc.Found, ScoreSource: sc.Source,
		Duration: time.Since(start), Usage: out.Usage, Response: fault.Truncate(agents.Text(answer), n.maxLength), Attempts: attempts}
	for _, f := range failed {
		it.Errors = append(it.Errors, agentError{Agent: f.agent, Message: f.message})
	}
	entry, warns := buildEntry(n.metas, &entryContext{
		loop: loop, score: sc.Value, results: results, input: st.input,
		insights: lessons.Insights, improvements: lessons.Improvements, mistakes: lessons.Mistakes,
		other: lessons.Other,
	})
	pass := Pass{Number: loop, Score: sc.Value, ScoreFound: sc.Found, Answer: answer, Lessons: lessons, Input: st.input, Outputs: out.Children}
	n.goEntry(entry, pass) // build.go
	judged = append(judged, metadataWarnings(warns)...)
	it.Warnings = cognition.Messages(judged)
	werr := n.warnPass(in, path, loop, sc, judged) // strict mode: a warning ends the loop after this pass
	if n.persistent {
		// The iteration's work is done: persist it even if the run is being
		// canceled right now (the store bounds the wait).
		if err := n.appendHistory(context.WithoutCancel(ctx), in, loop, entry); err != nil {
			n.cutShort(in, st, it, StopError, fault.AtPath(path, err))
			return true, true
		}
	}
	st.past = append(st.past, entry)
	if len(st.past) > n.maxPastLoops {
		st.past = st.past[len(st.past)-n.maxPastLoops:]
	}
	st.iterations = append(st.iterations, it)
	st.last, st.score = out.Children, sc.Value
	st.lastAnswer, st.answerOf = answer, out.Children
	if st.bestIter == 0 || sc.Value > st.best {
		st.best, st.bestIter, st.bestOuts = sc.Value, loop, out.Children
	}
	recordPass(st, len(failed) > 0, n.sameAnswer, answer)
	if n.answerOK(out.Children, failed) {
		st.lastOK, st.lastOKPass = out.Children, loop
	}
	st.answered.note(n, loop, out.Children, sc.Value)
	uerr := n.applyUpdates(in, st, loop)
	n.recordMappings(st, out.Children, loop)
	n.notePass(in, st, out.Children)

	observed := in.Run.Wanted(event.LoopIteration)
	stop, reason, rs, cerr := n.checkAfter(in, st, loop, sc.Value, observed)
	if uerr != nil && cerr == nil {
		cerr = uerr
	}
	if !stop && cerr == nil && n.goStop(pass) {
		stop, reason = true, StopCondition
	}
	policy := n.policyStop(st, loop, failed)
	if stop && cerr == nil && !n.stopOnError {
		// A pass whose condition ended the loop (the threshold met) ends it
		// so, also when it is the max_failed_passes-th failed pass in a row:
		// its failed agents stay listed, the run is ok. on_error: stop wins.
		policy = ""
	}
	switch {
	case werr != nil:
		stop, reason = true, StopError
		st.errText = werr.Error()
	case policy != "":
		stop, reason = true, StopError
		st.errText = fault.AtPath(in.Path, errors.New(policy)).Error()
	case cerr != nil:
		stop, reason = true, StopError
		st.errText = fault.AtPath(path, cerr).Error()
	}
	if stop {
		st.reason = reason
	}
	if !observed {
		return stop, false
	}
	data := map[string]any{"loop_number": loop, "max_loops": n.maxLoops, "completed": true,
		"score": sc.Value, "score_found": sc.Found, "best": st.best, "threshold": n.threshold,
		"conditions": resultsValue(rs), "stop": stop,
		"kind": n.kind, "answer_preview": fault.Truncate(agents.Text(answer), previewLength)}
	if len(n.vars) > 0 {
		data["vars"] = n.varsOf(st)
	}
	if len(failed) > 0 {
		data["failed_agents"] = failedAgents(failed)
	}
	if attempts > 1 {
		data["attempts"] = attempts
	}
	if l := lessonsValue(lessons); l != nil {
		data["lessons"] = l
	}
	if out.Usage != (spend.Usage{}) {
		data["usage"] = usageValue(out.Usage)
	}
	in.Run.Emit(event.Event{Kind: event.LoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Data: data})
	return stop, false
}

// cutShort records pass it as cut short by err, ending the loop with reason;
// a fatal err is what the loop returns.
func (n *Node) cutShort(in agents.Input, st *state, it iteration, reason string, err error) {
	it.Cut = true
	it.Errors = []agentError{{Message: err.Error()}}
	st.iterations = append(st.iterations, it)
	st.reason = reason
	if reason == StopError {
		// A pass that failed is not completed: the checkpoint stays at the
		// pass before, and a resume runs it again.
		st.errText, st.unfinished = err.Error(), true
	}
	if fault.IsFatal(err) {
		st.fatal = err
	}
	in.Run.Emit(event.Event{Kind: event.LoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Error: err.Error(), Data: map[string]any{"loop_number": it.LoopNumber,
			"max_loops": n.maxLoops, "completed": false, "stop": true}})
}

// checkAfter evaluates the stop conditions after iteration loop; err says
// which condition could not be evaluated. The results are for the
// loop.iteration event: without stop_when they are made only when observed.
func (n *Node) checkAfter(in agents.Input, st *state, loop int, score float64, observed bool) (bool, string, []condResult, error) {
	if n.stop == nil {
		fired := score >= n.threshold
		if !observed {
			return fired, StopThreshold, nil, nil
		}
		return fired, StopThreshold, []condResult{{Kind: condScore, Fired: fired,
			Detail: fmt.Sprintf("score %g, threshold %g", score, n.threshold)}}, nil
	}
	env := &condEnv{outputs: st.last, st: st, score: score, evaluated: true}
	env.data = n.condData(in, st, loop, st.last, st.input)
	var rs []condResult
	fired, reason, err := n.stop.eval(env, false, &rs)
	st.stablePrev, st.stableNext = st.stableNext, nil
	return fired, reason, rs, err
}

// ctxReason is why a done ctx stopped the loop: timeout for its own timeout:
// or the caller's deadline, canceled for a cancellation.
func (n *Node) ctxReason(ctx context.Context) string {
	if cause := context.Cause(ctx); errors.Is(cause, errLoopTimeout) || errors.Is(cause, context.DeadlineExceeded) {
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

// previewText is the input as the loop.pass.start event shows it: text as it
// is, a mapping or list as compact JSON.
func previewText(v any) string {
	switch v.(type) {
	case map[string]any, []any:
		return agents.Text(v)
	}
	return pyvalue.Str(v)
}

// truncateInput is the past_loops_metadata variable input: Python's str() of
// the pass's input, cut to 200 characters as OrKa does.
func truncateInput(v any) string {
	s := pyvalue.Str(v)
	if len(s) > 200 {
		return fault.Truncate(s, 200)[:len(fault.Truncate(s, 200))-len("…")] + "...<truncated>"
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

// toResults turns an iteration's outputs into the scanner's input, in run
// order. The maps are the ones templates read (cognition never changes them).
func toResults(outs *agents.Outputs) []cognition.Result {
	res := make([]cognition.Result, 0, outs.Len())
	outs.EachMap(func(id string, m map[string]any) bool {
		res = append(res, cognition.Result{ID: id, Value: m})
		return true
	})
	return res
}

// passTimedOut records pass it as cut short by iteration_timeout. on_error
// decides what follows: stop ends the loop with an error; continue goes on to
// the next pass unless max_failed_passes passes in a row have failed.
func (n *Node) passTimedOut(in agents.Input, st *state, it iteration, path string) (stop, cut bool) {
	msg := fmt.Sprintf("%s: the pass ran over iteration_timeout %s and was cut short", path, n.iterTimeout)
	it.Cut, it.TimedOut = true, true
	it.Errors = []agentError{{Message: msg}}
	st.iterations = append(st.iterations, it)
	switch {
	case n.stopOnError:
		st.reason, st.errText = StopError, msg+" (on_error: stop)"
	case failedRun(st.iterations) >= n.maxFailed:
		st.reason = StopError
		st.errText = fmt.Sprintf("%s: %d passes in a row failed (max_failed_passes: %d), the last: %s", in.Path, failedRun(st.iterations), n.maxFailed, msg)
	}
	stop = st.reason != ""
	in.Run.Emit(event.Event{Kind: event.LoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Error: msg, Data: map[string]any{"loop_number": it.LoopNumber,
			"max_loops": n.maxLoops, "completed": false, "timed_out": true, "stop": stop, "kind": n.kind}})
	return stop, true
}
