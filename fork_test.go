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
