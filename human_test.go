package cogloop_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/human"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A loop whose pass is a writer and a human judge that scores it; the
// judge's comment is a lesson the next pass's prompt reads.
const humanLoopWF = `orchestrator: {id: reviewed, agents: [draft, l, final]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "draft for {{ input }}"}
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.9
    cognitive_extraction: {enabled: true, extract_patterns: {improvements: ["FIX: ([^\\n]+)"]}}
    internal_workflow:
      orchestrator: {id: inner, agents: [w, judge]}
      agents:
        - {id: w, type: openai-answer, model: m, prompt: "write {{ loop_number }} after {{ get_past_loops() | length }} {{ get_past_insights() }}"}
        - {id: judge, type: human, kind: score, prompt: "Rate: {{ previous_outputs.w.response }}"}
  - {id: final, type: openai-answer, model: m, prompt: "final {{ previous_outputs.l.response }}"}
`

// calls counts model calls by prompt and answers each with its prompt.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n == nil {
			c.n = map[string]int{}
		}
		c.n[req.Prompt]++
		return agents.Reply{Text: "reply to " + req.Prompt}, nil
	}), nil
}

func (c *calls) repeated() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p, n := range c.n {
		if n > 1 {
			out = append(out, fmt.Sprintf("%q ×%d", p, n))
		}
	}
	return out
}

var answerTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func scoreAnswers() []human.Answer {
	return []human.Answer{
		{Kind: human.KindScore, Score: 0.3, Comment: "FIX: make the opening paragraph shorter and plainer", By: "ann", At: answerTime},
		{Kind: human.KindScore, Score: 0.5, Comment: "FIX: add one worked example after the second section", By: "bob", At: answerTime},
		{Kind: human.KindScore, Score: 0.95, By: "ann", At: answerTime},
	}
}

// pastLoops is the loop's history as the result holds it, without the
// entries' wall-clock timestamps.
func pastLoops(t *testing.T, res *cogloop.Result) []any {
	t.Helper()
	l, ok := res.Outputs.Get("l")
	require.True(t, ok)
	var out []any
	for _, e := range l.Fields["past_loops"].([]any) {
		m := maps.Clone(e.(map[string]any))
		delete(m, "timestamp")
		out = append(out, m)
	}
	require.Len(t, out, 3)
	return out
}

// A run that waits at every pass of the loop, answered each time and
// continued, ends with the same history, answer and outputs as a run
// answered in-process by WithHuman; no model call is made twice.
func TestHumanWaitAnswerContinue(t *testing.T) {
	wf, err := cogloop.Parse([]byte(humanLoopWF), "human.yaml")
	require.NoError(t, err)
	answers := scoreAnswers()

	// In-process answers: the reference.
	next := 0
	ref, err := wf.Run(context.Background(), "topic", cogloop.WithModels(&calls{}), cogloop.WithHuman(func(_ context.Context, q human.Question) (human.Answer, error) {
		next++
		return answers[next-1], nil
	}))
	require.NoError(t, err)
	require.Equal(t, 3, next)

	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &calls{}
	var events []event.Event
	observe := func(e event.Event) {
		if e.Kind == event.HumanWait || e.Kind == event.HumanAnswer || e.Kind == event.RunEnd {
			events = append(events, e)
		}
	}
	res, err := wf.Run(context.Background(), "topic", cogloop.WithRunID("h1"), cogloop.WithCheckpoints(), cogloop.WithMemory(store),
		cogloop.WithModels(models), cogloop.WithObserver(observe))
	for i := range answers {
		require.Error(t, err)
		it := fault.AsInterrupt(err)
		require.NotNil(t, it, "%v", err)
		assert.Equal(t, cogloop.StatusWaiting, res.Status)
		require.NotNil(t, res.Waiting)
		assert.Equal(t, fmt.Sprintf("l › iteration %d › judge", i+1), res.Waiting.Path)
		assert.Equal(t, human.KindScore, res.Waiting.Kind)
		assert.Contains(t, res.Waiting.Text, fmt.Sprintf("reply to write %d", i+1))
		waiting, lerr := cogloop.ListWaiting(context.Background(), store)
		require.NoError(t, lerr)
		require.Len(t, waiting, 1)
		assert.Equal(t, "h1", waiting[0].RunID)

		require.NoError(t, cogloop.Answer(context.Background(), store, "h1", answers[i]))
		waiting, lerr = cogloop.ListWaiting(context.Background(), store)
		require.NoError(t, lerr)
		assert.Empty(t, waiting)
		res, err = wf.Run(context.Background(), "topic", cogloop.WithResume("h1", false), cogloop.WithMemory(store),
			cogloop.WithModels(models), cogloop.WithObserver(observe))
	}
	require.NoError(t, err)
	assert.Equal(t, cogloop.StatusOK, res.Status)
	assert.Empty(t, models.repeated(), "model calls repeated after an answer")
	assert.Equal(t, pastLoops(t, ref), pastLoops(t, res))
	assert.Equal(t, "make the opening paragraph shorter and plainer", pastLoops(t, res)[0].(map[string]any)["improvements"])
	stamp := regexp.MustCompile(`'timestamp': '[^']*'`)
	assert.Equal(t, stamp.ReplaceAllString(ref.Text(), ""), stamp.ReplaceAllString(res.Text(), ""))
	for _, id := range []string{"draft"} {
		a, _ := ref.Outputs.Get(id)
		b, _ := res.Outputs.Get(id)
		assert.Equal(t, a.Response, b.Response, id)
	}

	// the event stream tells who answered what and how long the run waited
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind+":"+fmt.Sprint(e.Data["status"]))
		if e.Kind == event.HumanAnswer {
			assert.Contains(t, []any{"ann", "bob"}, e.Data["answered_by"])
			assert.Contains(t, e.Data, "waited_ms")
		}
	}
	assert.Equal(t, []string{"human.wait:<nil>", "run.end:waiting", "human.answer:<nil>", "human.wait:<nil>", "run.end:waiting",
		"human.answer:<nil>", "human.wait:<nil>", "run.end:waiting", "human.answer:<nil>", "run.end:ok"}, kinds)
}

const approveWF = `orchestrator: {id: approval, agents: [draft, ok, publish]}
agents:
  - {id: draft, type: openai-answer, model: m, prompt: "draft {{ input }}"}
  - {id: ok, type: human, prompt: "Publish {{ previous_outputs.draft.response }}?"}
  - {id: pick, type: human, kind: choice, options: [red, blue], prompt: "Colour?"}
  - {id: publish, type: openai-answer, model: m, prompt: "publish {{ previous_outputs.ok.approved }} {{ previous_outputs.ok.comment }}"}
`

// waitingRun starts approveWF under run id id and returns it waiting.
func waitingRun(t *testing.T, store memory.Store, id string, models agents.ModelSource) *cogloop.Workflow {
	t.Helper()
	wf, err := cogloop.Parse([]byte(approveWF), "approve.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x", cogloop.WithRunID(id), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.Error(t, err)
	require.Equal(t, cogloop.StatusWaiting, res.Status, "%v", err)
	return wf
}

func TestAnswerRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &calls{}
	wf := waitingRun(t, store, "a1", models)
	before, _, err := store.LoadCheckpoint(ctx, "a1")
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		run  string
		a    human.Answer
		want error
	}{
		{"wrong kind", "a1", human.Answer{Kind: human.KindScore, Score: 0.5}, cogloop.ErrWrongKind},
		{"not waiting", "nope", human.Answer{Kind: human.KindApprove, Approved: true}, cogloop.ErrNotWaiting},
		{"no such path", "a1", human.Answer{Kind: human.KindApprove, Path: "pick"}, cogloop.ErrNotWaiting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := cogloop.Answer(ctx, store, tc.run, tc.a)
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.run)
			after, _, err := store.LoadCheckpoint(ctx, "a1")
			require.NoError(t, err)
			assert.Equal(t, before.State, after.State, "a refused answer changed the checkpoint")
		})
	}

	require.NoError(t, cogloop.Answer(ctx, store, "a1", human.Answer{Kind: human.KindApprove, Approved: true, Comment: "ship it"}))
	err = cogloop.Answer(ctx, store, "a1", human.Answer{Kind: human.KindApprove, Approved: false})
	require.ErrorIs(t, err, cogloop.ErrAlreadyAnswered)

	res, err := wf.Run(ctx, "x", cogloop.WithResume("a1", false), cogloop.WithMemory(store), cogloop.WithModels(models))
	require.NoError(t, err)
	assert.Equal(t, "reply to publish True ship it", res.Text())
	assert.Empty(t, models.repeated())
	// a finished run waits for nothing
	err = cogloop.Answer(ctx, store, "a1", human.Answer{Kind: human.KindApprove, Approved: true})
	require.ErrorIs(t, err, cogloop.ErrAlreadyAnswered)
}

func TestChoiceAndScoreRanges(t *testing.T) {
	q := human.Question{Agent: "pick", Kind: human.KindChoice, Options: []string{"red", "blue"}}
	require.NoError(t, human.Check(q, human.Answer{Kind: human.KindChoice, Choice: "red"}))
	require.ErrorIs(t, human.Check(q, human.Answer{Kind: human.KindChoice, Choice: "green"}), human.ErrBadAnswer)
	q = human.Question{Agent: "s", Kind: human.KindScore}
	for _, s := range []float64{-0.1, 1.5} {
		require.ErrorIs(t, human.Check(q, human.Answer{Kind: human.KindScore, Score: s}), human.ErrBadAnswer)
	}
	for in, want := range map[string]float64{"0.8": 0.8, "8/10": 0.8, "80%": 0.8} {
		got, err := human.ParseScore(in)
		require.NoError(t, err)
		assert.InDelta(t, want, got, 1e-9, in)
	}
	q = human.Question{Agent: "j", Kind: human.KindJSON, Schema: []byte(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`)}
	require.NoError(t, human.Check(q, human.Answer{Kind: human.KindJSON, JSON: map[string]any{"n": 3}}))
	require.ErrorIs(t, human.Check(q, human.Answer{Kind: human.KindJSON, JSON: map[string]any{"n": "x"}}), human.ErrBadAnswer)
}

// Two answers racing for one question: exactly one wins, the other is told.
func TestAnswerRaceOneWins(t *testing.T) {
	ctx := context.Background()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	for round := range 20 {
		id := fmt.Sprintf("race%d", round)
		waitingRun(t, store, id, &calls{})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = cogloop.Answer(ctx, store, id, human.Answer{Kind: human.KindApprove, Approved: i == 0, By: fmt.Sprint(i)})
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else {
				require.ErrorIs(t, err, cogloop.ErrAlreadyAnswered)
			}
		}
		require.Equal(t, 1, won, "round %d: %v", round, errs)
	}
}

// Without a checkpoint and without a callback a human step cannot wait:
// the run fails at once with an error that says what to do.
func TestHumanWithoutCheckpointFails(t *testing.T) {
	wf, err := cogloop.Parse([]byte(approveWF), "approve.yaml")
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x", cogloop.WithModels(&calls{}))
	require.Error(t, err)
	assert.Equal(t, cogloop.StatusFailed, res.Status)
	assert.Contains(t, err.Error(), `agent "ok" asks a person but the run cannot wait`)
	assert.True(t, errors.Is(err, cogloop.ErrRunFailed))
}

// WithHuman on a checkpointed run waits durably and continues through the
// resume path: the same answer and history as without checkpoints, no
// model call twice.
func TestWithHumanCheckpointed(t *testing.T) {
	wf, err := cogloop.Parse([]byte(humanLoopWF), "human.yaml")
	require.NoError(t, err)
	answers := scoreAnswers()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	models := &calls{}
	var asked []string
	res, err := wf.Run(context.Background(), "topic", cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(models),
		cogloop.WithHuman(func(_ context.Context, q human.Question) (human.Answer, error) {
			asked = append(asked, q.Path)
			return answers[len(asked)-1], nil
		}))
	require.NoError(t, err)
	assert.Equal(t, cogloop.StatusOK, res.Status)
	assert.Equal(t, []string{"l › iteration 1 › judge", "l › iteration 2 › judge", "l › iteration 3 › judge"}, asked)
	assert.Empty(t, models.repeated())
	assert.Equal(t, "make the opening paragraph shorter and plainer", pastLoops(t, res)[0].(map[string]any)["improvements"])
}

const approveToolsWF = `orchestrator: {id: guarded, agents: [asker]}
agents:
  - id: asker
    type: openai-answer
    model: m
    prompt: "Answer: {{ input }}"
    tools: [lookup]
    approve_tools: [lookup]
  - id: lookup
    type: scripted
    description: Look a word up.
    prompt: "look up {{ args.query }}"
    responses: {cycle: ["known"]}
`

// toolModel asks for lookup until it has a tool result, then answers with
// the result it was told; it counts its calls.
type toolModel struct {
	mu    sync.Mutex
	calls int
}

func (m *toolModel) ModelFor(string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		m.mu.Lock()
		m.calls++
		m.mu.Unlock()
		for _, msg := range req.Messages {
			if msg.Role == "tool" {
				return agents.Reply{Text: "told: " + msg.Text}, nil
			}
		}
		return agents.Reply{ToolCalls: []agents.ToolCall{{ID: "c1", Name: "lookup", Args: `{"query":"apple"}`}}}, nil
	}), nil
}

// approve_tools: the call waits for a person; approved, the tool runs and
// the model is not asked again for the round it asked in; rejected, the
// model is told so with the comment.
func TestApproveTools(t *testing.T) {
	ctx := context.Background()
	wf, err := cogloop.Parse([]byte(approveToolsWF), "approve.yaml")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ans  human.Answer
		want string
	}{
		{"approved", human.Answer{Kind: human.KindApprove, Approved: true}, "told: known"},
		{"rejected", human.Answer{Kind: human.KindApprove, Comment: "not that word", By: "ann"}, "told: error: a person rejected this call (ann): not that word"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := memory.NewInMemory(memory.Options{})
			require.NoError(t, err)
			m := &toolModel{}
			res, err := wf.Run(ctx, "apple", cogloop.WithRunID("t"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(m))
			require.Error(t, err)
			require.Equal(t, cogloop.StatusWaiting, res.Status, "%v", err)
			assert.Equal(t, "lookup", res.Waiting.Tool)
			assert.JSONEq(t, `{"query":"apple"}`, res.Waiting.ToolArgs)
			assert.Equal(t, "asker › approve lookup (round 1, call 1)", res.Waiting.Path)
			assert.Equal(t, 1, m.calls)

			require.NoError(t, cogloop.Answer(ctx, store, "t", tc.ans))
			res, err = wf.Run(ctx, "apple", cogloop.WithResume("t", false), cogloop.WithMemory(store), cogloop.WithModels(m))
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Text())
			assert.Equal(t, 2, m.calls, "the round's model call is not repeated")
		})
	}

	_, err = cogloop.Parse([]byte(strings.Replace(approveToolsWF, "approve_tools: [lookup]", "approve_tools: [lokup]", 1)), "bad.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `approve_tools names "lokup", which is not one of the tools (lookup) nor all; did you mean "lookup"?`)
}

// Bad human steps are refused at load with their position and the fix.
func TestHumanLoadErrors(t *testing.T) {
	for _, tc := range []struct{ agent, want string }{
		{`{id: h, type: human, kind: vote, prompt: "q"}`, `kind "vote" is not one of [approve score text choice json]`},
		{`{id: h, type: human, kind: choice, prompt: "q"}`, "kind choice needs options"},
		{`{id: h, type: human, options: [a], prompt: "q"}`, "options are for kind choice, not approve"},
		{`{id: h, type: human, kind: score, default: yes, prompt: "q"}`, "default: yes is not an answer of kind score (--score N)"},
		{`{id: h, type: human, kind: score, default: 7, prompt: "q"}`, "score 7 is out of range"},
		{`{id: h, type: human, kind: choice, options: [a, b], default: c, prompt: "q"}`, `"c" is not one of the options "a", "b"`},
		{`{id: h, type: human, output_schema: {type: object}, prompt: "q"}`, "output_schema is for kind json, not approve"},
		{`{id: h, type: human}`, "a human step needs a prompt"},
		{`{id: h, type: human, prompt: "q", kind: text, timeout: soon}`, "timeout"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := cogloop.Parse([]byte("orchestrator: {id: o, agents: [h]}\nagents:\n  - "+tc.agent+"\n"), "h.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "h.yaml:3:")
		})
	}
}

// A question with a timeout that nobody answered in time takes the
// step's default when the run continues; an answer after the expiry is
// refused.
func TestHumanTimeoutDefault(t *testing.T) {
	ctx := context.Background()
	const wfText = `orchestrator: {id: o, agents: [h, after]}
agents:
  - {id: h, type: human, kind: choice, options: [a, b], timeout: 1ns, default: b, prompt: "pick"}
  - {id: after, type: openai-answer, model: m, prompt: "chose {{ previous_outputs.h.choice }} by {{ previous_outputs.h.answered_by }}"}
`
	wf, err := cogloop.Parse([]byte(wfText), "t.yaml")
	require.NoError(t, err)
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	res, err := wf.Run(ctx, "x", cogloop.WithRunID("t"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(&calls{}))
	require.Error(t, err)
	require.Equal(t, cogloop.StatusWaiting, res.Status)
	err = cogloop.Answer(ctx, store, "t", human.Answer{Kind: human.KindChoice, Choice: "a"})
	require.ErrorIs(t, err, cogloop.ErrNotWaiting)
	assert.Contains(t, err.Error(), "expired")
	res, err = wf.Run(ctx, "x", cogloop.WithResume("t", false), cogloop.WithMemory(store), cogloop.WithModels(&calls{}))
	require.NoError(t, err)
	assert.Equal(t, "reply to chose b by default", res.Text())
}
