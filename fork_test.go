package cogloop_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/file"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// forkWF is a 5-pass loop whose prompts read the lessons and scores of the
// passes before (so a fork that lost or invented history prompts otherwise),
// with a budget (so the spend kept counts), and an agent after the loop.
const forkWF = `orchestrator: {id: forkable, agents: [l, final], budget: {max_tokens: 100000}}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.99
    score_from: critic
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    budget: {max_tokens: 90000}
    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["INSIGHT:\\s*([^\\n]+)"]
        improvements: ["FIX:\\s*([^\\n]+)"]
    past_loops_metadata: {round: "{{ loop_number }}", quality: "{{ score }}", fixes: "{{ improvements }}"}
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - id: writer
          type: openai-answer
          model: m
          prompt: "Write about {{ get_input() }} (pass {{ loop_number }}).{% for p in get_past_loops() %} [{{ p.round }}: {{ p.quality }} {{ p.fixes }}]{% endfor %}"
        - {id: critic, type: openai-answer, model: m, prompt: "Rate {{ previous_outputs.writer.response }}"}
  - {id: final, type: openai-answer, model: m, prompt: "Final after {{ previous_outputs.l.loops_completed }} passes, best {{ previous_outputs.l.best_score }}"}
`

// scriptModels answers each agent from its own list, in order (as --script
// does), and records every prompt; a call past the list fails the test.
type scriptModels struct {
	mu      sync.Mutex
	replies map[string][]string
	prompts map[string][]string
}

func newScript(replies map[string][]string) *scriptModels {
	return &scriptModels{replies: replies, prompts: map[string][]string{}}
}

func (s *scriptModels) ModelFor(id string) (agents.Model, error) {
	return agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.prompts[id] = append(s.prompts[id], req.Prompt)
		if len(s.replies[id]) == 0 {
			return agents.Reply{}, fmt.Errorf("agent %s: no scripted reply left", id)
		}
		r := s.replies[id][0]
		s.replies[id] = s.replies[id][1:]
		return agents.Reply{Text: r, Usage: spend.Usage{PromptTokens: len(req.Prompt), CompletionTokens: len(r)}}, nil
	}), nil
}

// forkReplies are the replies of passes from..5 of forkWF, and the final's.
func forkReplies(from int) map[string][]string {
	scores := []string{"0.3", "0.5", "0.45", "0.7", "0.6"}
	out := map[string][]string{"final": {"the end"}}
	for n := from; n <= 5; n++ {
		out["writer"] = append(out["writer"], fmt.Sprintf("draft %d", n))
		out["critic"] = append(out["critic"], fmt.Sprintf("SCORE: %s\nINSIGHT: insight of pass %d\nFIX: shorten paragraph %d", scores[n-1], n, n))
	}
	return out
}

// forkView is what a fork must reproduce of a fresh run.
type forkView struct {
	Answer, Final, Status string
	Scores                []float64
	History               []map[string]any
	LoopUsage             spend.Usage
	BestIteration         int
}

func viewOf(t *testing.T, res *cogloop.Result) forkView {
	t.Helper()
	l, ok := res.Outputs.Get("l")
	require.True(t, ok)
	v := forkView{Answer: agents.Text(l.Response), Final: res.Text(), Status: res.Status}
	for _, p := range l.Fields["past_loops"].([]any) {
		e := map[string]any{}
		for k, x := range p.(map[string]any) {
			if k != "timestamp" {
				e[k] = x
			}
		}
		v.History = append(v.History, e)
	}
	typed := res.Loops()
	require.NotEmpty(t, typed)
	for _, it := range typed[0].Iterations {
		v.Scores = append(v.Scores, it.Score)
	}
	v.LoopUsage, v.BestIteration = typed[0].Usage, typed[0].BestIteration
	return v
}

// forkStores are the checkpoint stores a fork is tested on: a real
// redis-server and the file store (and the in-memory one).
func forkStores(t *testing.T) map[string]func(t *testing.T) memory.Store {
	srv := redistest.Start(t)
	return map[string]func(t *testing.T) memory.Store{
		"redis": func(t *testing.T) memory.Store {
			s, err := redis.New(context.Background(), srv.URL(), redis.Options{Options: memory.Options{Namespace: strings.ReplaceAll(t.Name(), "/", "-")}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		"file": func(t *testing.T) memory.Store {
			base, err := memory.NewInMemory(memory.Options{})
			require.NoError(t, err)
			fs, err := file.New(t.TempDir(), memory.Options{})
			require.NoError(t, err)
			s := fs.Over(base)
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
	}
}

// A fork at every pass K of a 5-pass loop, on the same scripted replies,
// ends as a fresh run does: same history, scores, answers and spend, and
// calls the models only for passes K..5 and the agent after the loop, with
// the prompts the fresh run sent then.
func TestForkAtEveryPassMatchesAFreshRun(t *testing.T) {
	wf, err := cogloop.Parse([]byte(forkWF), "fork.yaml")
	require.NoError(t, err)
	for name, open := range forkStores(t) {
		t.Run(name, func(t *testing.T) {
			store := open(t)
			ctx := context.Background()
			fresh := newScript(forkReplies(1))
			res, err := wf.Run(ctx, "tides", cogloop.WithRunID("parent"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(fresh))
			require.NoError(t, err)
			want := viewOf(t, res)
			require.Len(t, want.Scores, 5, "the loop runs its 5 passes")
			require.Len(t, want.History, 5)

			for k := 1; k <= 5; k++ {
				t.Run(fmt.Sprintf("pass_%d", k), func(t *testing.T) {
					script := newScript(forkReplies(k))
					var forked map[string]any
					observe := func(e event.Event) {
						if e.Kind == event.RunStart {
							forked, _ = e.Data["forked_from"].(map[string]any)
						}
					}
					id := fmt.Sprintf("fork-%d", k)
					res, err := wf.Run(ctx, "tides", cogloop.WithFork("parent", fmt.Sprint(k)), cogloop.WithRunID(id),
						cogloop.WithMemory(store), cogloop.WithModels(script), cogloop.WithObserver(observe))
					require.NoError(t, err)
					assert.Equal(t, want, viewOf(t, res))
					assert.Equal(t, fresh.prompts["writer"][k-1:], script.prompts["writer"], "the writer's prompts from pass %d", k)
					assert.Equal(t, fresh.prompts["critic"][k-1:], script.prompts["critic"])
					assert.Equal(t, fresh.prompts["final"], script.prompts["final"])
					assert.Equal(t, map[string]any{"run": "parent", "pass": fmt.Sprintf("l:%d", k)}, forked)

					// The fork is checkpointed in turn: a fork of the fork works.
					again := newScript(forkReplies(5))
					res, err = wf.Run(ctx, "tides", cogloop.WithFork(id, "l:5"), cogloop.WithRunID(id+"-again"),
						cogloop.WithMemory(store), cogloop.WithModels(again))
					require.NoError(t, err)
					assert.Equal(t, want, viewOf(t, res))
				})
			}
		})
	}
}

// forkParent runs forkWF as run "parent" on a fresh in-memory store.
func forkParent(t *testing.T) (memory.Store, *scriptModels) {
	t.Helper()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(forkWF), "fork.yaml")
	require.NoError(t, err)
	fresh := newScript(forkReplies(1))
	_, err = wf.Run(context.Background(), "tides", cogloop.WithRunID("parent"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(fresh))
	require.NoError(t, err)
	return store, fresh
}

// A fork may change prompts: the kept passes stay as they were, the passes
// from K on use the new prompt. A new input reaches the passes from K on.
func TestForkWithChangedPromptsAndInput(t *testing.T) {
	store, fresh := forkParent(t)
	changed := strings.Replace(forkWF, "Write about {{ get_input() }}", "Write briefly about {{ get_input() }}", 1)
	wf, err := cogloop.Parse([]byte(changed), "fork.yaml")
	require.NoError(t, err)
	script := newScript(forkReplies(3))
	res, err := wf.Run(context.Background(), "tides", cogloop.WithFork("parent", "3"), cogloop.WithRunID("f"), cogloop.WithMemory(store), cogloop.WithModels(script))
	require.NoError(t, err)
	require.Len(t, script.prompts["writer"], 3)
	assert.Equal(t, strings.Replace(fresh.prompts["writer"][2], "Write about", "Write briefly about", 1), script.prompts["writer"][0],
		"pass 3 runs the new prompt on the history of passes 1 and 2")
	assert.Len(t, viewOf(t, res).History, 5)

	script = newScript(forkReplies(4))
	_, err = wf.Run(context.Background(), "coral", cogloop.WithFork("parent", "4"), cogloop.WithRunID("g"), cogloop.WithMemory(store), cogloop.WithModels(script))
	require.NoError(t, err)
	assert.Contains(t, script.prompts["writer"][0], "Write briefly about coral (pass 4). [1: 0.3 shorten paragraph 1]", "a new input, and the kept history")
}

// What a fork cannot do is refused before any model call, naming what.
func TestForkRefusals(t *testing.T) {
	store, _ := forkParent(t)
	parse := func(src string) *cogloop.Workflow {
		wf, err := cogloop.Parse([]byte(src), "fork.yaml")
		require.NoError(t, err)
		return wf
	}
	same := parse(forkWF)
	editor := strings.Replace(forkWF, "agents: [writer, critic]", "agents: [writer, critic, editor]", 1)
	editor = strings.Replace(editor, "        - {id: critic,", "        - {id: editor, type: openai-answer, model: m, prompt: \"edit\"}\n        - {id: critic,", 1)
	fewer := strings.Replace(forkWF, "max_loops: 5", "max_loops: 3", 1)
	for _, tc := range []struct {
		name, parent, pass, id string
		wf                     *cogloop.Workflow
		want                   string
		is                     error
	}{
		{"changed agents", "parent", "2", "a", parse(editor), `loop "l" ran agents [writer, critic], now [writer, critic, editor]`, cogloop.ErrWorkflowChanged},
		{"pass never reached", "parent", "7", "b", same, `loop "l" of the run completed 5 passes: fork from a pass from 1 to 6`, nil},
		{"max_loops below the pass", "parent", "4", "c", parse(fewer), `loop "l" has max_loops 3 in this workflow: pass 4 would not run`, nil},
		{"unknown loop", "parent", "nope:2", "d", same, `the run has no checkpointed loop "nope"; its loops: l`, nil},
		{"nested loop that is not there", "parent", "l:2/inner:1", "e", same, `pass l › iteration 2 has no checkpointed loop`, nil},
		{"no such run", "ghost", "2", "f", same, "no checkpoint for this run", cogloop.ErrNoCheckpoint},
		{"run id taken", "parent", "2", "parent", same, `the fork needs a run id of its own, not "parent"`, nil},
		{"not a pass", "parent", "l:x", "g", same, `"x" is not a pass number from 1 to 1000`, nil},
		{"pass 0", "parent", "0", "h", same, `"0" is not a pass number`, nil},
		{"no loop before the colon", "parent", ":2", "i", same, `names no loop before the colon`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := newScript(nil)
			_, err := tc.wf.Run(context.Background(), "tides", cogloop.WithFork(tc.parent, tc.pass), cogloop.WithRunID(tc.id),
				cogloop.WithMemory(store), cogloop.WithModels(script))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), fmt.Sprintf("fork run %q at pass %s", tc.parent, tc.pass))
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Empty(t, script.prompts, "no model was called")
			_, ok, err := store.LoadCheckpoint(context.Background(), tc.id)
			require.NoError(t, err)
			assert.Equal(t, tc.id == "parent", ok, "a refused fork leaves no checkpoint")
		})
	}
	// A fork into a run id that has a checkpoint is refused too.
	_, err := same.Run(context.Background(), "tides", cogloop.WithFork("parent", "2"), cogloop.WithRunID("taken"), cogloop.WithMemory(store), cogloop.WithModels(newScript(forkReplies(2))))
	require.NoError(t, err)
	_, err = same.Run(context.Background(), "tides", cogloop.WithFork("parent", "2"), cogloop.WithRunID("taken"), cogloop.WithMemory(store), cogloop.WithModels(newScript(nil)))
	require.ErrorContains(t, err, `run "taken" exists already: fork into a new run id`)
}

const nestedForkWF = `orchestrator: {id: nested, agents: [outer]}
agents:
  - id: outer
    type: loop
    max_loops: 3
    score_threshold: 0.99
    score_from: judge
    internal_workflow:
      orchestrator: {id: o, agents: [inner, judge]}
      agents:
        - id: inner
          type: loop
          max_loops: 3
          score_threshold: 0.99
          internal_workflow:
            orchestrator: {id: i, agents: [w]}
            agents:
              - {id: w, type: openai-answer, model: m, prompt: "inner pass {{ loop_number }} after {{ get_past_loops() | length }}: {% for p in get_past_loops() %}{{ p.score }} {% endfor %}"}
        - {id: judge, type: openai-answer, model: m, prompt: "judge outer pass {{ loop_number }}: {{ previous_outputs.inner.final_score }} {{ previous_outputs.inner.loops_completed }} after {% for p in get_past_loops() %}{{ p.score }} {% endfor %}"}
`

// nestedReplies answers the passes of nestedForkWF from outer pass o, inner pass i on.
func nestedReplies(o, i int) map[string][]string {
	out := map[string][]string{}
	for op := o; op <= 3; op++ {
		from := 1
		if op == o {
			from = i
		}
		for ip := from; ip <= 3; ip++ {
			out["w"] = append(out["w"], fmt.Sprintf("draft %d.%d SCORE: 0.%d%d", op, ip, op, ip))
		}
		out["judge"] = append(out["judge"], fmt.Sprintf("SCORE: 0.%d", 3+op))
	}
	return out
}

// Nested: --pass outer:2/inner:3 keeps outer pass 1 and inner passes 1–2 of
// outer pass 2, and runs the rest as the fresh run did.
func TestForkNestedLoop(t *testing.T) {
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(nestedForkWF), "nested.yaml")
	require.NoError(t, err)
	ctx := context.Background()
	fresh := newScript(nestedReplies(1, 1))
	want, err := wf.Run(ctx, "x", cogloop.WithRunID("p"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(fresh))
	require.NoError(t, err)
	require.Len(t, fresh.prompts["w"], 9)

	for _, tc := range []struct {
		pass string
		o, i int
	}{{"outer:2/inner:3", 2, 3}, {"outer:2/inner:1", 2, 1}, {"outer:3/inner:2", 3, 2}, {"outer:2", 2, 1}} {
		t.Run(tc.pass, func(t *testing.T) {
			script := newScript(nestedReplies(tc.o, tc.i))
			got, err := wf.Run(ctx, "x", cogloop.WithFork("p", tc.pass), cogloop.WithRunID("f "+tc.pass), cogloop.WithMemory(store), cogloop.WithModels(script))
			require.NoError(t, err)
			skip := 3*(tc.o-1) + tc.i - 1
			assert.Equal(t, fresh.prompts["w"][skip:], script.prompts["w"])
			assert.Equal(t, fresh.prompts["judge"][tc.o-1:], script.prompts["judge"])
			assert.Equal(t, want.Text(), got.Text())
			wl, gl := want.Loops(), got.Loops()
			require.Len(t, gl, len(wl))
			for i := range wl {
				assert.Equal(t, wl[i].Iterations, gl[i].Iterations, wl[i].Path)
			}
		})
	}
}

const twoLoopsWF = `orchestrator: {id: two, agents: [a, b]}
agents:
  - id: a
    type: loop
    max_loops: 2
    score_threshold: 0.99
    internal_workflow:
      orchestrator: {id: ia, agents: [wa]}
      agents:
        - {id: wa, type: openai-answer, model: m, prompt: "a pass {{ loop_number }}"}
  - id: b
    type: loop
    max_loops: 3
    score_threshold: 0.99
    internal_workflow:
      orchestrator: {id: ib, agents: [wb]}
      agents:
        - {id: wb, type: openai-answer, model: m, prompt: "b pass {{ loop_number }} after {{ get_past_loops() | length }} on {{ get_input() | truncate(40) }}"}
`

// A loop that ended before the forked pass began is kept (the fork of b at
// pass 2 does not run a again); a loop after the forked one runs again from
// its start (the fork of a at pass 2 runs b anew).
func TestForkKeepsLoopsThatEndedBefore(t *testing.T) {
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	wf, err := cogloop.Parse([]byte(twoLoopsWF), "two.yaml")
	require.NoError(t, err)
	ctx := context.Background()
	replies := func(a, b int) map[string][]string {
		out := map[string][]string{}
		for n := a; n <= 2; n++ {
			out["wa"] = append(out["wa"], fmt.Sprintf("a%d SCORE: 0.%d", n, n))
		}
		for n := b; n <= 3; n++ {
			out["wb"] = append(out["wb"], fmt.Sprintf("b%d SCORE: 0.%d", n, n))
		}
		return out
	}
	fresh := newScript(replies(1, 1))
	want, err := wf.Run(ctx, "x", cogloop.WithRunID("two"), cogloop.WithCheckpoints(), cogloop.WithMemory(store), cogloop.WithModels(fresh))
	require.NoError(t, err)

	script := newScript(replies(3, 2))
	got, err := wf.Run(ctx, "x", cogloop.WithFork("two", "b:2"), cogloop.WithRunID("fb"), cogloop.WithMemory(store), cogloop.WithModels(script))
	require.NoError(t, err)
	assert.Empty(t, script.prompts["wa"], "loop a had ended: it is kept")
	assert.Equal(t, fresh.prompts["wb"][1:], script.prompts["wb"])
	assert.Equal(t, want.Text(), got.Text())

	script = newScript(replies(2, 1))
	got, err = wf.Run(ctx, "x", cogloop.WithFork("two", "a:2"), cogloop.WithRunID("fa"), cogloop.WithMemory(store), cogloop.WithModels(script))
	require.NoError(t, err)
	assert.Equal(t, fresh.prompts["wa"][1:], script.prompts["wa"])
	assert.Equal(t, fresh.prompts["wb"], script.prompts["wb"], "loop b ran after the forked pass: it runs again from pass 1")
	assert.Equal(t, want.Text(), got.Text())
}
