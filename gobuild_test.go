package cogloop_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goAgents are a writer and a critic written in Go: the writer records what
// it saw of the loop (typed), the critic scores pass n with scores[n-1] and
// states one insight.
type goAgents struct {
	scores []float64

	mu    sync.Mutex
	tasks []any
	seen  [][]agents.PastLoop
	// onCritic, when set, runs before the critic of pass n answers.
	onCritic func(ctx context.Context, n int) error
}

func (g *goAgents) writer(_ context.Context, in agents.Input) (agents.Output, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tasks = append(g.tasks, in.Loop.Task)
	g.seen = append(g.seen, in.Loop.Past())
	return agents.Output{Response: fmt.Sprintf("draft %d of %v", in.Loop.Number, in.Loop.Task)}, nil
}

func (g *goAgents) critic(ctx context.Context, in agents.Input) (agents.Output, error) {
	n := in.Loop.Number
	if g.onCritic != nil {
		if err := g.onCritic(ctx, n); err != nil {
			return agents.Output{}, err
		}
	}
	return agents.Output{Response: fmt.Sprintf("INSIGHT: pass %d is clearer\nSCORE: %.2f", n, g.scores[n-1])}, nil
}

func (g *goAgents) body() agents.Sequence {
	return agents.Sequence{Steps: []agents.Step{
		agents.NewStep("writer", "go", agents.Func(g.writer)),
		agents.NewStep("critic", "go", agents.Func(g.critic)),
	}}
}

func goLoopConfig(g *goAgents) loopnode.Config {
	return loopnode.Config{
		ID: "improve", Body: g.body(), MaxLoops: 5, Threshold: 0.9,
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`},
		Lessons: cognition.ExtractConfig{Patterns: cognition.ExtractPatterns{
			Insights: []string{`INSIGHT:\s*([^\n]+)`},
		}},
	}
}

func goWorkflow(t *testing.T, cfg loopnode.Config) *cogloop.Workflow {
	t.Helper()
	loop, err := loopnode.NewLoop(cfg)
	require.NoError(t, err)
	wf, err := cogloop.New("quality", loop)
	require.NoError(t, err)
	return wf
}

func freshStore(t *testing.T) memory.Store {
	t.Helper()
	s, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	return s
}

// A loop built in Go runs through Workflow.Run and reports a typed result;
// its agents read the loop state typed.
func TestGoLoopTypedResult(t *testing.T) {
	g := &goAgents{scores: []float64{0.5, 0.7, 0.95, 0.2}}
	res, err := goWorkflow(t, goLoopConfig(g)).Run(context.Background(), "a slogan", cogloop.WithMemory(freshStore(t)))
	require.NoError(t, err)
	assert.Equal(t, cogloop.StatusOK, res.Status)
	assert.Equal(t, "draft 3 of a slogan", res.Text())

	loops := res.Loops()
	require.Len(t, loops, 1)
	l := loops[0]
	assert.Equal(t, "improve", l.ID)
	assert.Equal(t, loopnode.StopReason(loopnode.StopThreshold), l.StopReason)
	assert.Equal(t, 3, l.LoopsCompleted)
	assert.Equal(t, 3, l.BestIteration)
	assert.Equal(t, "draft 3 of a slogan", l.BestAnswer)
	require.Len(t, l.Iterations, 3)
	for i, it := range l.Iterations {
		assert.Equal(t, fmt.Sprintf("draft %d of a slogan", i+1), it.Answer)
		assert.Equal(t, g.scores[i], it.Score)
	}
	require.Len(t, l.PastLoops, 3)
	for i, p := range l.PastLoops {
		assert.Equal(t, i+1, p.Number)
		assert.Equal(t, g.scores[i], p.Score)
		assert.Equal(t, fmt.Sprintf("pass %d is clearer", i+1), p.Insights)
		assert.NotEmpty(t, p.Timestamp, "OrKa's default entry has a timestamp")
		assert.Nil(t, p.Extra)
	}

	// The writer saw the task without OrKa's wrapper and the history typed.
	assert.Equal(t, []any{"a slogan", "a slogan", "a slogan"}, g.tasks)
	require.Len(t, g.seen, 3)
	assert.Empty(t, g.seen[0])
	require.Len(t, g.seen[2], 2)
	assert.Equal(t, "pass 2 is clearer", g.seen[2][1].Insights)
	assert.Equal(t, 0.7, g.seen[2][1].Score)
}

// Until and MetadataFunc are Go stop conditions and history fields.
func TestGoLoopUntilAndMetadataFunc(t *testing.T) {
	g := &goAgents{scores: []float64{0.1, 0.2, 0.3, 0.4, 0.5}}
	cfg := goLoopConfig(g)
	cfg.Until = func(p loopnode.Pass) bool { return strings.Contains(agents.Text(p.Answer), "draft 2") }
	cfg.MetadataFunc = func(p loopnode.Pass) map[string]any {
		return map[string]any{"answer_length": len(agents.Text(p.Answer)), "lesson": p.Lessons.Insights}
	}
	res, err := goWorkflow(t, cfg).Run(context.Background(), "x", cogloop.WithMemory(freshStore(t)))
	require.NoError(t, err)
	l := res.Loops()[0]
	assert.Equal(t, loopnode.StopReason(loopnode.StopCondition), l.StopReason)
	assert.Equal(t, 2, l.LoopsCompleted)
	require.Len(t, l.PastLoops, 2)
	assert.Equal(t, map[string]any{"answer_length": len("draft 2 of x"), "lesson": "pass 2 is clearer"}, l.PastLoops[1].Extra)
}

// Persist keeps the history across runs in the run's store, without Redis.
func TestGoLoopPersistsAcrossRuns(t *testing.T) {
	store := freshStore(t)
	g := &goAgents{scores: []float64{0.5, 0.95}}
	cfg := goLoopConfig(g)
	cfg.Persist = true
	wf := goWorkflow(t, cfg)
	_, err := wf.Run(context.Background(), "first", cogloop.WithMemory(store))
	require.NoError(t, err)
	g.tasks, g.seen = nil, nil
	res, err := wf.Run(context.Background(), "second", cogloop.WithMemory(store))
	require.NoError(t, err)
	require.NotEmpty(t, g.seen)
	first := g.seen[0]
	require.Len(t, first, 2, "the second run's first pass sees the first run's two passes")
	assert.Equal(t, "pass 1 is clearer", first[0].Insights)
	assert.Len(t, res.Loops()[0].PastLoops, 4)
}

// manualCtx is a context whose deadline passes when the test says so: no
// clock decides what the test sees.
type manualCtx struct {
	context.Context
	done chan struct{}
	once sync.Once
	err  error
}

func newManualCtx(err error) *manualCtx {
	return &manualCtx{Context: context.Background(), done: make(chan struct{}), err: err}
}

func (c *manualCtx) fire()                 { c.once.Do(func() { close(c.done) }) }
func (c *manualCtx) Done() <-chan struct{} { return c.done }
func (c *manualCtx) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// A loop stopped by the caller's cancellation or deadline, or by a fatal
// error, stays in the result with its completed passes and why it stopped.
func TestGoLoopStoppedStaysInResult(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		reason string
	}{
		{"canceled", context.Canceled, loopnode.StopCanceled},
		{"deadline", context.DeadlineExceeded, loopnode.StopTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newManualCtx(tc.err)
			g := &goAgents{scores: []float64{0.5, 0.6, 0.7}}
			g.onCritic = func(c context.Context, n int) error {
				if n == 2 {
					ctx.fire()
					<-c.Done()
					return c.Err()
				}
				return nil
			}
			res, err := goWorkflow(t, goLoopConfig(g)).Run(ctx, "x", cogloop.WithMemory(freshStore(t)))
			require.ErrorIs(t, err, cogloop.ErrRunFailed)
			require.ErrorIs(t, err, tc.err)
			assert.Equal(t, cogloop.StatusFailed, res.Status)
			loops := res.Loops()
			require.Len(t, loops, 1, "the stopped loop is in the result")
			l := loops[0]
			assert.Equal(t, loopnode.StopReason(tc.reason), l.StopReason)
			assert.Equal(t, 1, l.LoopsCompleted)
			assert.Equal(t, "draft 1 of x", l.BestAnswer)
			require.Len(t, l.Iterations, 2)
			assert.True(t, l.Iterations[0].Completed)
			assert.False(t, l.Iterations[1].Completed)
			require.Len(t, l.PastLoops, 1)
			assert.Equal(t, "pass 1 is clearer", l.PastLoops[0].Insights)
		})
	}
	t.Run("fatal", func(t *testing.T) {
		g := &goAgents{scores: []float64{0.5, 0.6, 0.7}}
		g.onCritic = func(_ context.Context, n int) error {
			if n == 2 {
				return fault.Fatal(errors.New("the disk is gone"), "put the disk back")
			}
			return nil
		}
		res, err := goWorkflow(t, goLoopConfig(g)).Run(context.Background(), "x", cogloop.WithMemory(freshStore(t)))
		require.ErrorIs(t, err, cogloop.ErrRunFailed)
		l := res.Loops()
		require.Len(t, l, 1)
		assert.Equal(t, loopnode.StopReason(loopnode.StopError), l[0].StopReason)
		assert.Equal(t, 1, l[0].LoopsCompleted)
	})
}

// NewLoop names each field out of range.
func TestNewLoopErrors(t *testing.T) {
	_, err := loopnode.NewLoop(loopnode.Config{ID: "l", Threshold: 2, Feedback: "sideways",
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE: (`}})
	require.Error(t, err)
	for _, want := range []string{`loop "l": Body is nil`, "MaxLoops must be 1..1000, not 0", "Threshold must be 0..1, not 2",
		`Feedback must be none, replace or append, not "sideways"`, `loop "l": Score:`} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = cogloop.New("", nil)
	require.Error(t, err)
	_, err = cogloop.New("w", agents.Sequence{})
	assert.ErrorContains(t, err, `workflow "w" has no steps`)
	_, err = cogloop.New("w", agents.Func(nil), cogloop.WithPresetsDir("presets"))
	assert.ErrorContains(t, err, "WithRegistry and WithPresetsDir apply to loading YAML")
	_, err = cogloop.New("w", agents.Sequence{Steps: []agents.Step{{ID: "a"}, {ID: "a", Agent: agents.Func(nil)}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `step "a" has no agent`)
	assert.Contains(t, err.Error(), `step id "a" is used twice`)
}

// The same loop written in YAML (its agents registered as Go types) and
// built in Go gives the same output: the YAML factory builds through NewLoop.
func TestGoLoopMatchesYAML(t *testing.T) {
	const yamlSrc = `
orchestrator: {id: quality, agents: [improve]}
agents:
  - id: improve
    type: loop
    max_loops: 5
    score_threshold: 0.9
    score_extraction_pattern: 'SCORE:\s*([0-9.]+)'
    cognitive_extraction:
      extract_patterns:
        insights: ['INSIGHT:\s*([^\n]+)']
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - {id: writer, type: gowriter}
        - {id: critic, type: gocritic}
`
	run := func(wf *cogloop.Workflow) map[string]any {
		res, err := wf.Run(context.Background(), "a slogan", cogloop.WithMemory(freshStore(t)))
		require.NoError(t, err)
		o, ok := res.Outputs.Get("improve")
		require.True(t, ok)
		b, err := json.Marshal(o.Map())
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		for _, it := range m["iterations"].([]any) {
			delete(it.(map[string]any), "duration_ms")
		}
		for _, list := range []any{m["past_loops"], m["response"].(map[string]any)["past_loops"]} {
			for _, p := range list.([]any) {
				delete(p.(map[string]any), "timestamp")
			}
		}
		return m
	}
	gy := &goAgents{scores: []float64{0.5, 0.7, 0.95}}
	reg := cogloop.NewRegistry()
	reg.MustRegister("gowriter", func(*agents.Builder, *load.Config) (agents.Agent, error) { return agents.Func(gy.writer), nil })
	reg.MustRegister("gocritic", func(*agents.Builder, *load.Config) (agents.Agent, error) { return agents.Func(gy.critic), nil })
	fromYAML, err := cogloop.Parse([]byte(yamlSrc), "inline.yaml", cogloop.WithRegistry(reg))
	require.NoError(t, err)

	gg := &goAgents{scores: gy.scores}
	cfg := goLoopConfig(gg)
	cfg.Timeout = loopnode.DefaultTimeout // YAML's default
	got, want := run(goWorkflow(t, cfg)), run(fromYAML)
	assert.Equal(t, want, got)
	assert.Equal(t, gy.tasks, gg.tasks)
}

// The typed accessors read the loop events as emitted and as a run record
// decodes them (JSON numbers as float64), to the same values.
func TestTypedEventAccessors(t *testing.T) {
	g := &goAgents{scores: []float64{0.5, 0.95}}
	var mu sync.Mutex
	var events []event.Event
	_, err := goWorkflow(t, goLoopConfig(g)).Run(context.Background(), "x", cogloop.WithMemory(freshStore(t)),
		cogloop.WithObserver(func(e event.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }))
	require.NoError(t, err)
	var passes []event.LoopPass
	var ended []event.LoopEnded
	var started []event.LoopStarted
	var status string
	for _, e := range events {
		var back event.Event
		b, err := json.Marshal(e)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &back))
		if p, ok := e.LoopPass(); ok {
			decoded, _ := back.LoopPass()
			assert.Equal(t, p, decoded)
			passes = append(passes, p)
		}
		if l, ok := e.LoopEnded(); ok {
			decoded, _ := back.LoopEnded()
			assert.Equal(t, l, decoded)
			ended = append(ended, l)
		}
		if s, ok := e.LoopStarted(); ok {
			started = append(started, s)
		}
		if s, ok := e.RunStatus(); ok {
			status = s
		}
		_, isPass := e.LoopPass()
		assert.Equal(t, e.Kind == event.LoopIteration, isPass)
	}
	require.Len(t, passes, 2)
	assert.Equal(t, event.LoopPass{Number: 2, MaxLoops: 5, Completed: true, Score: 0.95, Best: 0.95, Threshold: 0.9, ScoreFound: true,
		Stop: true, Kind: "score", AnswerPreview: "draft 2 of x", Lessons: map[string]string{"insights": "pass 2 is clearer"}}, passes[1])
	assert.Equal(t, []event.LoopEnded{{LoopsCompleted: 2, StopReason: "threshold", FinalScore: 0.95, BestScore: 0.95, BestIteration: 2}}, ended)
	assert.Equal(t, []event.LoopStarted{{MaxLoops: 5, Threshold: 0.9}}, started)
	assert.Equal(t, cogloop.StatusOK, status)
}

// A fork as a loop's body runs as the pass's one step: its branch agents'
// outputs are what the pass scores.
func TestGoLoopForkBody(t *testing.T) {
	answer := func(text string) agents.Agent {
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) {
			return agents.Output{Response: text}, nil
		})
	}
	fork, err := flow.NewForkFrom(flow.ForkConfig{ID: "panel", Branches: [][]agents.Step{
		{agents.NewStep("draft", "go", answer("a draft"))},
		{agents.NewStep("judge", "go", answer("SCORE: 0.95"))},
	}})
	require.NoError(t, err)
	loop, err := loopnode.NewLoop(loopnode.Config{ID: "l", Body: fork, MaxLoops: 3, Threshold: 0.9, OutputAgent: "draft",
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, From: []string{"judge"}}})
	require.NoError(t, err)
	wf, err := cogloop.New("w", loop)
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(freshStore(t)))
	require.NoError(t, err)
	l := res.Loops()[0]
	assert.Equal(t, loopnode.StopReason(loopnode.StopThreshold), l.StopReason)
	assert.Equal(t, 1, l.LoopsCompleted)
	assert.Equal(t, "a draft", l.Response)
	o, _ := res.Outputs.Get("l")
	assert.ElementsMatch(t, []string{"panel", "draft", "judge"}, o.Children.IDs())
}

// Checkpoints apply to a workflow built in Go: a run stopped in pass 2 is
// resumed there, and pass 1 is not run again.
func TestGoLoopResumes(t *testing.T) {
	store := freshStore(t)
	g := &goAgents{scores: []float64{0.5, 0.7, 0.95}}
	g.onCritic = func(_ context.Context, n int) error {
		if n == 2 {
			return fault.Fatal(errors.New("the disk is gone"), "put the disk back")
		}
		return nil
	}
	wf := goWorkflow(t, goLoopConfig(g))
	_, err := wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithRunID("go-resume"), cogloop.WithCheckpoints())
	require.Error(t, err)
	require.Len(t, g.tasks, 2, "the writer ran in passes 1 and 2")

	g.onCritic = nil
	g.tasks, g.seen = nil, nil
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithResume("go-resume", false))
	require.NoError(t, err)
	assert.Len(t, g.tasks, 2, "passes 2 and 3 ran; pass 1 came from the checkpoint")
	require.NotEmpty(t, g.seen)
	require.Len(t, g.seen[0], 1, "pass 2 sees pass 1's lesson, restored")
	assert.Equal(t, "pass 1 is clearer", g.seen[0][0].Insights)
	l := res.Loops()[0]
	assert.Equal(t, 3, l.LoopsCompleted)
	assert.Equal(t, loopnode.StopReason(loopnode.StopThreshold), l.StopReason)
}

// A nested loop's typed result read back from a checkpoint keeps its history
// and its passes' answers (the checkpoint stores them once, in the fields).
func TestNestedLoopTypedResultAfterResume(t *testing.T) {
	inner := &goAgents{scores: []float64{0.5, 0.95, 0.5, 0.95}}
	innerLoop, err := loopnode.NewLoop(goLoopConfig(inner))
	require.NoError(t, err)
	fail := true
	judgeScores := []float64{0.5, 0.3}
	judge := agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
		if in.Loop.Number == 2 && fail {
			return agents.Output{}, fault.Fatal(errors.New("the disk is gone"), "put the disk back")
		}
		return agents.Output{Response: fmt.Sprintf("SCORE: %.2f", judgeScores[in.Loop.Number-1])}, nil
	})
	outer, err := loopnode.NewLoop(loopnode.Config{ID: "outer", MaxLoops: 2, Threshold: 0.9, Return: loopnode.ReturnBest,
		Score: scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+)`, From: []string{"judge"}},
		Body: agents.Sequence{Steps: []agents.Step{
			agents.NewStep("improve", "loop", innerLoop),
			agents.NewStep("judge", "go", judge),
		}}})
	require.NoError(t, err)
	wf, err := cogloop.New("nested", outer)
	require.NoError(t, err)
	store := freshStore(t)
	_, err = wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithRunID("nested-resume"), cogloop.WithCheckpoints())
	require.Error(t, err)
	fail = false
	res, err := wf.Run(context.Background(), "x", cogloop.WithMemory(store), cogloop.WithResume("nested-resume", false))
	require.NoError(t, err)
	loops := res.Loops()
	require.Len(t, loops, 2)
	assert.Equal(t, "outer", loops[0].ID)
	assert.Equal(t, 1, loops[0].BestIteration, "pass 1, restored from the checkpoint, is returned")
	in := loops[1]
	assert.Equal(t, "outer › improve", in.Path)
	require.Len(t, in.PastLoops, 2)
	assert.Equal(t, "pass 2 is clearer", in.PastLoops[1].Insights)
	require.Len(t, in.Iterations, 2)
	assert.Equal(t, "draft 1 of x", in.Iterations[0].Answer)
	assert.Equal(t, "draft 2 of x", in.BestAnswer)
}
