package flow_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func agentEnds(rec *agenttest.Recorder) []string {
	var out []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd {
			out = append(out, e.Agent)
		}
	}
	return out
}

func TestForkJoinKeepsDeclarationOrderWhateverTheFinishingOrder(t *testing.T) {
	// c finishes first, then b, then a1: b waits until c has ended, a1 until b
	// has ended (the observer opens the gates on their end events).
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f, j, after]}
agents:
  - id: f
    type: fork
    targets: [[a1, a2], [b], c]
  - {id: a1, type: gate, wait: b, response: A1}
  - {id: a2, type: echo, prompt: "a2 saw {{ previous_outputs.a1.response }}"}
  - {id: b, type: gate, wait: c, response: B}
  - {id: c, type: gate, response: C}
  - {id: j, type: join, group: f}
  - id: after
    type: echo
    prompt: "{{ previous_outputs.a2.response }}|{{ get_agent_response('b') }}|{{ previous_outputs.j.merged.c.response }}|{{ previous_outputs.j.status }}|{{ previous_outputs.j.a1.response }}"
`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := &agenttest.Recorder{}
	observe := func(e event.Event) {
		rec.Observe(e)
		if e.Kind == event.AgentEnd && (e.Agent == "b" || e.Agent == "c") {
			close(w.gate(e.Agent))
		}
	}
	out, err := wf.Run(ctx, agents.Input{Value: "go", Run: &agents.Run{Observe: observe}})
	require.NoError(t, err)

	ends := agentEnds(rec)
	require.Equal(t, []string{"c", "b", "a1", "a2", "f", "j", "after"}, ends, "the branches finished in reverse order")
	assert.Equal(t, []string{"f", "a1", "a2", "b", "c", "j", "after"}, out.Children.IDs(), "previous_outputs are in declaration order")
	assert.Equal(t, "a2 saw A1|B|C|done|A1", out.Response)

	fork := get(t, out.Children, "f")
	assert.Equal(t, []string{"a1", "a2", "b", "c"}, fork.Children.IDs())
	assert.Equal(t, "forked", fork.Fields["status"])
	assert.Equal(t, []any{"a1", "a2", "b", "c"}, fork.Fields["agents"])
	assert.Equal(t, []any{"a1", "a2", "b", "c"}, fork.Response)

	join := get(t, out.Children, "j")
	m := join.Map()
	assert.Equal(t, "done", m["status"])
	merged := m["merged"].(map[string]any)
	assert.Len(t, merged, 4)
	assert.Equal(t, "B", merged["b"].(map[string]any)["response"])
	assert.Equal(t, merged["b"], m["b"], "every branch agent is also a top-level key of the join")
	assert.Equal(t, "a1: A1\n\na2: a2 saw A1\n\nb: B\n\nc: C", join.Response)
}

func TestForkWithScriptedDelays(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f, j, moderator]}
agents:
  - id: f
    type: fork
    targets: [[slow], [medium], [fast]]
  - {id: slow, type: scripted, prompt: "slow on {{ get_input() }}", responses: [{text: "slow answer", delay: 40ms, usage: {prompt_tokens: 3, completion_tokens: 2}}]}
  - {id: medium, type: scripted, prompt: "medium", responses: [{text: "medium answer", delay: 15ms, usage: {prompt_tokens: 5, completion_tokens: 1}}]}
  - {id: fast, type: scripted, prompt: "fast", responses: [{text: "fast answer", delay: 1ms}]}
  - {id: j, type: join, group: f}
  - {id: moderator, type: echo, prompt: "{{ previous_outputs.slow.response }} / {{ previous_outputs.medium.response }} / {{ previous_outputs.fast.response }}"}
`)
	out, rec, err := run(t, wf, "tides")
	require.NoError(t, err)
	assert.Equal(t, []string{"f", "slow", "medium", "fast", "j", "moderator"}, out.Children.IDs())
	assert.Equal(t, "slow answer / medium answer / fast answer", out.Response)
	fork := get(t, out.Children, "f")
	assert.Equal(t, spend.Usage{PromptTokens: 8, CompletionTokens: 3}, fork.Usage, "the fork sums its branches' usage")
	assert.Equal(t, fork.Usage.Add(get(t, out.Children, "moderator").Usage), out.Usage, "branch usage is counted once")

	var prompts []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && e.Agent == "slow" {
			prompts = append(prompts, e.Prompt, e.Node)
		}
	}
	assert.Equal(t, []string{"slow on tides", "f › slow"}, prompts, "branch agents report like sequential steps")
}

func TestBranchEvents(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f]}
agents:
  - {id: f, type: fork, targets: [[a, b], [c]]}
  - {id: a, type: const, response: A}
  - {id: b, type: fail, message: nope}
  - {id: c, type: const, response: C}
`)
	_, rec, err := run(t, wf, "x")
	require.NoError(t, err)
	type branchEvent struct {
		kind, node, err string
		data            map[string]any
	}
	got := map[string]branchEvent{}
	for _, e := range rec.Events() {
		if e.Kind == event.BranchStart || e.Kind == event.BranchEnd {
			assert.Equal(t, "f", e.Agent)
			assert.Equal(t, "fork", e.Type)
			got[e.Kind+" "+e.Node] = branchEvent{e.Kind, e.Node, e.Error, e.Data}
		}
	}
	require.Len(t, got, 4)
	start1 := got["branch.start f › branch 1"]
	assert.Equal(t, map[string]any{"fork": "f", "branch": 1, "agents": []any{"a", "b"}}, start1.data)
	end1 := got["branch.end f › branch 1"]
	assert.Equal(t, "f › b: nope", end1.err)
	assert.Equal(t, 1, end1.data["failed"])
	end2 := got["branch.end f › branch 2"]
	assert.Equal(t, "", end2.err)
	assert.Equal(t, 2, end2.data["branch"])

	// Every branch start comes before its agents' events, every end after them.
	var seq []string
	for _, e := range rec.Events() {
		seq = append(seq, e.Kind+" "+e.Node)
	}
	idx := func(s string) int {
		for i, x := range seq {
			if x == s {
				return i
			}
		}
		t.Fatalf("no event %q in %v", s, seq)
		return -1
	}
	assert.Less(t, idx("branch.start f › branch 1"), idx("agent.start f › a"))
	assert.Less(t, idx("agent.end f › b"), idx("branch.end f › branch 1"))
	assert.Less(t, idx("branch.end f › branch 2"), idx("agent.end f"))
}

func TestFailingBranchAgentBecomesAnErrorRecord(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f, j, after]}
agents:
  - id: f
    type: fork
    targets: [[ok1, bad, ok1b], [crash], [ok2]]
  - {id: ok1, type: const, response: one}
  - {id: bad, type: fail, message: model said no}
  - {id: ok1b, type: echo, prompt: "after bad: {{ previous_outputs.bad.status }}"}
  - {id: crash, type: panic, message: kaboom}
  - {id: ok2, type: const, response: two}
  - {id: j, type: join, group: f}
  - {id: after, type: echo, prompt: "{{ previous_outputs.j.merged.bad.status }} {{ previous_outputs.ok2.response }}"}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	fork := get(t, out.Children, "f")
	assert.False(t, fork.Failed(), "without fail_fast the fork itself succeeds")

	bad := get(t, out.Children, "bad")
	require.True(t, bad.Failed())
	assert.Equal(t, "f › bad: model said no", bad.Err)
	assert.Equal(t, "after bad: error", get(t, out.Children, "ok1b").Response, "the branch goes on after a failed agent")

	crash := get(t, out.Children, "crash")
	require.True(t, crash.Failed())
	assert.Contains(t, crash.Err, "f › crash: panic: kaboom")
	assert.Contains(t, crash.Err, "goroutine", "a panic in a branch keeps its stack")

	assert.Equal(t, "two", get(t, out.Children, "ok2").Response)
	assert.Equal(t, "error two", out.Response, "the join merges the error record and later agents run")
	assert.Contains(t, get(t, out.Children, "j").Response, "ok1: one\n\nbad failed: f › bad: model said no\n\nok1b: after bad: error")
}

func TestFailFastCancelsTheOtherBranches(t *testing.T) {
	for _, mode := range []string{"parallel", "sequential"} {
		t.Run(mode, func(t *testing.T) {
			w := &world{}
			targets := failingTargets(mode)
			wf, _ := w.parse(t, fmt.Sprintf(`orchestrator: {id: w, agents: [f, j, after]}
agents:
  - id: f
    type: fork
    mode: %s
    fail_fast: true
    targets: %s
  - {id: w1, type: wait}
  - {id: w2, type: wait}
  - {id: ok, type: const, response: fine}
  - {id: bad, type: fail, message: broken}
  - {id: never, type: const, response: unreachable}
  - {id: never2, type: const, response: unreachable}
  - {id: j, type: join, group: f}
  - {id: after, type: const, response: still runs}
`, mode, targets))
			out, rec, err := run(t, wf, "x")
			require.NoError(t, err, "fail_fast fails the fork, not the run")
			started := 0
			for _, e := range rec.Events() {
				if e.Kind == event.AgentStart && (e.Agent == "w1" || e.Agent == "w2") {
					started++
				}
			}
			assert.Equal(t, int64(started), w.exited.Load(), "every waiting agent that started was cancelled and returned before the fork did")

			fork := get(t, out.Children, "f")
			require.True(t, fork.Failed())
			assert.Equal(t, "f › bad: broken", fork.Err)
			bad := get(t, out.Children, "bad")
			assert.True(t, bad.Failed(), "the failing agent's record is kept")
			_, ran := out.Children.Get("never")
			assert.False(t, ran, "the failed branch stops")
			_, ran = out.Children.Get("never2")
			assert.False(t, ran, "later sequential branches do not start")
			if mode == "sequential" {
				assert.Equal(t, "fine", get(t, out.Children, "ok").Response)
			}

			join := get(t, out.Children, "j")
			require.True(t, join.Failed())
			assert.Equal(t, `j: fork "f" failed: f › bad: broken`, join.Err)
			assert.Equal(t, "still runs", out.Response)
			for _, e := range rec.Events() {
				assert.NotEqual(t, "never2", e.Agent)
			}
		})
	}
}

func TestCancellingTheRunStopsEveryBranch(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f, after]}
agents:
  - {id: f, type: fork, targets: [[w1], [w2], [w3]]}
  - {id: w1, type: wait}
  - {id: w2, type: wait}
  - {id: w3, type: wait}
  - {id: after, type: const, response: never}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started atomic.Int64
	run := &agents.Run{Observe: func(e event.Event) {
		if e.Kind == event.AgentStart && strings.HasPrefix(e.Agent, "w") && started.Add(1) == 3 {
			cancel()
		}
	}}
	out, err := wf.Run(ctx, agents.Input{Value: "x", Run: run})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, int64(3), w.exited.Load(), "no branch outlives the fork's run")
	_, ran := out.Children.Get("after")
	assert.False(t, ran)
}

func TestSequentialModeRunsBranchesOneAfterTheOther(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f]}
agents:
  - id: f
    type: fork
    mode: sequential
    targets: [[t1, t2], [t3], [t4]]
  - {id: t1, type: track}
  - {id: t2, type: track}
  - {id: t3, type: track}
  - {id: t4, type: echo, prompt: "{{ previous_outputs.t3.response }}"}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	assert.Equal(t, int64(1), w.maxInflight.Load())
	assert.Equal(t, []string{"t1", "t2", "t3"}, w.starts)
	assert.Equal(t, "t3 done", get(t, out.Children, "t4").Response, "a later sequential branch sees the earlier ones")
}

func TestMaxConcurrencyBoundsParallelBranches(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f]}
agents:
  - id: f
    type: fork
    max_concurrency: 2
    targets: [t1, t2, t3, t4, t5, t6]
  - {id: t1, type: track}
  - {id: t2, type: track}
  - {id: t3, type: track}
  - {id: t4, type: track}
  - {id: t5, type: track}
  - {id: t6, type: track}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	assert.LessOrEqual(t, w.maxInflight.Load(), int64(2))
	assert.Len(t, w.starts, 6)
	assert.Equal(t, []string{"t1", "t2", "t3", "t4", "t5", "t6"}, get(t, out.Children, "f").Children.IDs())
}

func TestJoinOfAForkOfForks(t *testing.T) {
	w := &world{}
	wf, warns := w.parse(t, `orchestrator: {id: w, agents: [outer, j, j2, after]}
agents:
  - id: outer
    type: fork
    targets: [[inner1], [inner2, tail]]
  - {id: inner1, type: fork, targets: [x1, x2]}
  - {id: inner2, type: fork, mode: sequential, targets: [[y1, y2]]}
  - {id: x1, type: const, response: X1}
  - {id: x2, type: const, response: X2}
  - {id: y1, type: const, response: Y1}
  - {id: y2, type: echo, prompt: "y2 after {{ previous_outputs.y1.response }}"}
  - {id: tail, type: echo, prompt: "tail sees {{ previous_outputs.y2.response }}"}
  - {id: j, type: join, group: outer}
  - {id: j2, type: join}
  - {id: after, type: echo, prompt: "{{ previous_outputs.j.merged.x2.response }}|{{ previous_outputs.tail.response }}|{{ previous_outputs.j2.fork_group }}"}
`)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Error(), `wf.yaml:14:5: agent "j2": no group: joining fork "outer"`)

	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	assert.Equal(t, []string{"outer", "inner1", "x1", "x2", "inner2", "y1", "y2", "tail", "j", "j2", "after"}, out.Children.IDs())
	merged := get(t, out.Children, "j").Fields["merged"].(map[string]any)
	for _, id := range []string{"inner1", "x1", "x2", "inner2", "y1", "y2", "tail"} {
		assert.Contains(t, merged, id)
	}
	assert.Len(t, merged, 7)
	assert.Equal(t, "X2|tail sees y2 after Y1|outer", out.Response)
}

func TestForkInsideALoopIsFreshEachIteration(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [society, final]}
agents:
  - id: society
    type: loop
    max_loops: 4
    score_threshold: 0.9
    score_extraction_pattern: "CONSENSUS:\\s*([0-9.]+)"
    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["strategy:\\s*(.+?)(?:\\n|$)"]
    past_loops_metadata:
      round: "{{ loop_number }}"
      strategies: "{{ insights }}"
    internal_workflow:
      orchestrator: {id: inner, agents: [fork_agents, join_agents, moderator]}
      agents:
        - id: fork_agents
          type: fork
          targets: [[logical], [empathetic], [skeptical]]
        - id: logical
          type: scripted
          prompt: "logical round {{ get_loop_number() }}{% if has_past_loops() %} after {{ get_past_loops()[-1].strategies }}{% endif %}"
          responses: [{text: "Strategy: phase it in", delay: 20ms}, {text: "Strategy: phase it in with data", delay: 1ms}]
        - id: empathetic
          type: scripted
          prompt: "empathetic round {{ get_loop_number() }}"
          responses: ["Strategy: ask the residents", "Strategy: residents agree"]
        - id: skeptical
          type: scripted
          prompt: "skeptical round {{ get_loop_number() }}"
          responses: [{text: "Strategy: measure first", delay: 5ms}, "Strategy: measured"]
        - id: join_agents
          type: join
        - id: moderator
          type: scripted
          prompt: "{{ previous_outputs.logical.response }} + {{ get_agent_response('empathetic') }} + {{ previous_outputs.join_agents.merged.skeptical.response }}"
          responses: ["no agreement yet. CONSENSUS: 0.5", "agreed. CONSENSUS: 0.95"]
  - id: final
    type: echo
    prompt: "{{ previous_outputs.society.loops_completed }} {{ previous_outputs.society.final_score }} {{ previous_outputs.society.result.moderator.response }}"
`)
	out, rec, err := run(t, wf, "close the centre to cars?")
	require.NoError(t, err)
	assert.Equal(t, "2 0.95 agreed. CONSENSUS: 0.95", out.Response)

	loop := get(t, out.Children, "society")
	assert.Equal(t, "threshold", loop.Fields["stop_reason"])
	assert.Equal(t, []string{"fork_agents", "logical", "empathetic", "skeptical", "join_agents", "moderator"}, loop.Children.IDs(),
		"the iteration map holds the fork, every branch agent, the join and the moderator, in declaration order")
	past := loop.Fields["past_loops"].([]any)
	require.Len(t, past, 2)
	assert.Equal(t, "phase it in | ask the residents | measure first", past[0].(map[string]any)["strategies"],
		"cognitive extraction sees the branch agents, in declaration order")

	var prompts = map[string]string{}
	branchStarts := 0
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd {
			prompts[e.Node] = e.Prompt
		}
		if e.Kind == event.BranchStart {
			branchStarts++
			assert.Equal(t, "fork_agents", e.Data["fork"])
		}
	}
	assert.Equal(t, 6, branchStarts, "three branches in each of two iterations")
	assert.Equal(t, "logical round 2 after phase it in | ask the residents | measure first",
		prompts["society › iteration 2 › fork_agents › logical"])
	assert.Equal(t, "Strategy: phase it in with data + Strategy: residents agree + Strategy: measured",
		prompts["society › iteration 2 › moderator"], "each iteration's fork is fresh")
}

// A fatal error in one branch cancels the other branches at once (without
// fail_fast) and stops the run with the branch agent's path and fix.
func TestFatalBranchErrorStopsTheForkAndTheRun(t *testing.T) {
	for _, mode := range []string{"parallel", "sequential"} {
		t.Run(mode, func(t *testing.T) {
			w := &world{}
			targets := failingTargets(mode)
			wf, _ := w.parse(t, fmt.Sprintf(`orchestrator: {id: w, agents: [f, after]}
agents:
  - {id: f, type: fork, mode: %s, targets: %s}
  - {id: w1, type: wait}
  - {id: w2, type: wait}
  - {id: ok, type: const, response: fine}
  - {id: bad, type: fail, message: no API key, fix: set THE_KEY}
  - {id: never, type: const, response: unreachable}
  - {id: never2, type: const, response: unreachable}
  - {id: after, type: const, response: must not run}
`, mode, targets))
			_, rec, err := run(t, wf, "x")
			require.Error(t, err)
			assert.True(t, fault.IsFatal(err))
			assert.Equal(t, "f › bad: no API key (set THE_KEY)", err.Error())
			started := 0
			for _, e := range rec.Events() {
				if e.Kind == event.AgentStart && (e.Agent == "w1" || e.Agent == "w2") {
					started++
				}
				assert.NotContains(t, []string{"never", "never2", "after"}, e.Agent, "nothing runs after a fatal error")
			}
			assert.Equal(t, int64(started), w.exited.Load(), "every waiting branch was cancelled and returned before the fork did")
		})
	}
}

// failingTargets are the branches of the failing-branch tests: in parallel mode
// two waiting branches around the failing one; in sequential mode one branch
// before it and one after.
func failingTargets(mode string) string {
	if mode == "sequential" {
		return "[[ok], [bad, never], [never2]]"
	}
	return "[[w1], [bad, never], [w2]]"
}

// Inside a loop, branches run on workers the loop keeps from pass to pass
// (their stacks stay grown); the loop ends them before its Run returns, so no
// goroutine outlives the run, whatever the fork's bound, and a fork outside
// any loop leaves none either.
func TestNoBranchGoroutineOutlivesTheRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [outer_fork, outer_join, l]}
agents:
  - {id: outer_fork, type: fork, targets: [o1, o2]}
  - {id: outer_join, type: join, group: outer_fork}
  - {id: o1, type: track, hold: 1ms}
  - {id: o2, type: track, hold: 1ms}
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.99
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    internal_workflow:
      orchestrator: {id: inner, agents: [all, all_join, two, two_join, s]}
      agents:
        - {id: all, type: fork, targets: [a1, a2, a3]}
        - {id: all_join, type: join, group: all}
        - {id: two, type: fork, max_concurrency: 2, targets: [b1, b2, b3, b4, b5]}
        - {id: two_join, type: join, group: two}
        - {id: a1, type: track, hold: 1ms}
        - {id: a2, type: track, hold: 1ms}
        - {id: a3, type: track, hold: 1ms}
        - {id: b1, type: track, hold: 1ms}
        - {id: b2, type: track, hold: 1ms}
        - {id: b3, type: track, hold: 1ms}
        - {id: b4, type: track, hold: 1ms}
        - {id: b5, type: track, hold: 1ms}
        - {id: s, type: const, response: "SCORE: 0.5"}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	loop := get(t, out.Children, "l")
	assert.Equal(t, 3, loop.Fields["loops_completed"])
	assert.Equal(t, []string{"all", "a1", "a2", "a3", "all_join", "two", "b1", "b2", "b3", "b4", "b5", "two_join", "s"}, loop.Children.IDs())
	w.mu.Lock()
	assert.Len(t, w.starts, 2+3*(3+5), "every branch agent of every pass ran")
	w.mu.Unlock()
}
