package loopnode

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/cognition"
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
}

var _ agents.Agent = (*Node)(nil)

var errLoopTimeout = errors.New("loop timeout")

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

func (it iteration) Map() map[string]any {
	m := map[string]any{
		"loop_number": it.LoopNumber,
		"score":       it.Score,
		"score_found": it.ScoreFound,
		"duration_ms": float64(it.Duration.Microseconds()) / 1000,
		"usage": map[string]any{
			"prompt_tokens":     it.Usage.PromptTokens,
			"completion_tokens": it.Usage.CompletionTokens,
		},
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
	lastOut    agents.Output
	score      float64
	best       float64
	bestIter   int
	usage      agents.Usage
	reason     string
	errText    string
}

// Run iterates the internal workflow until a stop condition holds.
func (n *Node) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if n.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, n.timeout, errLoopTimeout)
		defer cancel()
	}
	task := unwrapInput(in.Value)
	parent := in.Previous.Map()
	st := &state{}
	loops, err := n.restore(in, st)
	if err != nil {
		return agents.Output{}, err
	}
	resumed := loops >= 0
	if !resumed {
		loops = 0
		if n.persistent {
			if st.past, err = n.loadHistory(ctx, in); err != nil {
				return agents.Output{}, err
			}
		}
	}
	in.Run.Emit(agents.Event{Kind: agents.EventLoopStart, Node: in.Path, Agent: n.id, Type: "loop",
		Data: map[string]any{"max_loops": n.maxLoops, "threshold": n.threshold, "resumed_after": loops, "history": len(st.past)}})

	for st.reason == "" && loops < n.maxLoops {
		if err := ctx.Err(); err != nil {
			st.reason = n.ctxReason(ctx)
			break
		}
		loops++
		done := n.iterate(ctx, in, task, parent, loops, st)
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
			"best_score": st.best, "best_iteration": st.bestIter}})
	if st.reason == StopCanceled {
		return out, agents.AtPath(in.Path, context.Cause(ctx))
	}
	return out, nil
}

// iterate runs pass number loop; it reports whether the loop must stop.
func (n *Node) iterate(ctx context.Context, in agents.Input, task any, parent map[string]any, loop int, st *state) bool {
	meta := dynamicMetadata(n.metas, st.past)
	prev := make(map[string]any, len(parent)+1)
	for k, v := range parent {
		prev[k] = v
	}
	prev["past_loops"] = pastLoopsValue(st.past)
	wrapper := map[string]any{
		"input":               task,
		"previous_outputs":    prev,
		"loop_number":         loop,
		"scoring_context":     n.scoringCtx,
		"past_loops_metadata": meta,
	}
	path := agents.JoinPath(in.Path, fmt.Sprintf("iteration %d", loop))
	vars := make(map[string]any, len(in.Vars)+1)
	for k, v := range in.Vars {
		vars[k] = v
	}
	vars["score"] = st.score
	start := time.Now()
	out, err := n.inner.Run(ctx, agents.Input{
		Value: wrapper,
		Loop:  &agents.LoopState{Number: loop, PastLoops: st.past, Metadata: meta, Score: st.score},
		Vars:  vars,
		Path:  path,
		Run:   in.Run,
	})
	st.usage = st.usage.Add(out.Usage)
	if err != nil {
		if ctx.Err() != nil {
			st.reason = n.ctxReason(ctx)
		} else {
			st.reason = StopError
			st.errText = agents.AtPath(path, err).Error()
		}
		return true
	}

	results := toResults(out.Children)
	sc := n.scorer.Score(results)
	lessons := n.extractor.Extract(results)
	it := iteration{LoopNumber: loop, Score: sc.Value, ScoreFound: sc.Found, ScoreSource: sc.Source,
		Duration: time.Since(start), Usage: out.Usage, Warnings: append(sc.Warnings, lessons.Warnings...)}
	entry, warns := buildEntry(n.metas, entryContext{
		loop: loop, score: sc.Value,
		reasoningQuality: cognition.ReasoningQuality(results), convergenceTrend: cognition.ConvergenceTrend(results),
		timestamp: now(), input: truncateInput(task),
		insights: lessons.Insights, improvements: lessons.Improvements, mistakes: lessons.Mistakes,
	})
	it.Warnings = append(it.Warnings, warns...)
	for _, w := range it.Warnings {
		in.Run.Emit(agents.Event{Kind: agents.EventWarning, Node: path, Agent: n.id, Message: w})
	}
	if n.persistent {
		// The iteration's work is done: persist it even if the run is being
		// canceled right now (the store bounds the wait).
		if err := n.appendHistory(context.WithoutCancel(ctx), in, loop, entry); err != nil {
			st.reason, st.errText = StopError, agents.AtPath(path, err).Error()
			return true
		}
	}
	st.past = append(st.past, entry)
	if len(st.past) > n.maxPastLoops {
		st.past = st.past[len(st.past)-n.maxPastLoops:]
	}
	st.iterations = append(st.iterations, it)
	st.last, st.lastOut, st.score = out.Children, out, sc.Value
	if st.bestIter == 0 || sc.Value > st.best {
		st.best, st.bestIter = sc.Value, loop
	}
	in.Run.Emit(agents.Event{Kind: agents.EventLoopIteration, Node: in.Path, Agent: n.id, Type: "loop",
		Duration: it.Duration, Data: map[string]any{"loop_number": loop, "max_loops": n.maxLoops,
			"score": sc.Value, "score_found": sc.Found, "best": st.best, "threshold": n.threshold}})
	if sc.Value >= n.threshold {
		st.reason = StopThreshold
		return true
	}
	return false
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
