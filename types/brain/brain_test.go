package brain_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
	"github.com/cogloop/cogloop/types/brain"
)

// stores gives each test an in-memory store and a Redis store on a real
// redis-server on loopback.
func stores(t *testing.T) map[string]memory.Store {
	t.Helper()
	mem, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = mem.Close() })
	srv := redistest.Start(t)
	rs, err := redis.New(context.Background(), srv.URL(), redis.Patient(""))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rs.Close() })
	return map[string]memory.Store{"inmemory": mem, "redis": rs}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBrainOnEveryStore(t *testing.T) {
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
			b := &brain.Brain{Store: st, Namespace: "brain-" + name, Now: clk.now}

			steps := []string{"identify [component/entity]", "isolate [target]", "verify [target]"}
			c := brain.Context{Domain: "cooking", Task: "find why the cake collapses"}
			s, err := b.Learn(ctx, steps, c, true, 1, "")
			require.NoError(t, err)
			require.NotNil(t, s)
			assert.Equal(t, "skill:cooking:find-why-the-cake-collapses", s.Name)
			assert.InDelta(t, 0.7, s.Confidence, 1e-9)

			again, err := b.Learn(ctx, steps, c, true, 1, "")
			require.NoError(t, err)
			assert.Equal(t, s.ID, again.ID, "the same name reinforces the skill")
			assert.Equal(t, 2, again.UsageCount)
			assert.Greater(t, again.Confidence, s.Confidence)

			none, err := b.Learn(ctx, nil, brain.Context{Task: "nothing"}, true, 1, "")
			require.NoError(t, err)
			assert.Nil(t, none, "no steps, no skill")

			cands, err := b.Recall(ctx, brain.Context{Domain: "software", Task: "find why the service collapses under load"}, 3, 0.3, nil, "")
			require.NoError(t, err)
			require.Len(t, cands, 1)
			assert.Equal(t, s.ID, cands[0].Skill.ID)
			assert.Greater(t, cands[0].Semantic, 0.0)

			none2, err := b.Recall(ctx, brain.Context{Domain: "software", Task: "x"}, 3, 0.3, nil, "software")
			require.NoError(t, err)
			assert.Empty(t, none2, "the domain filter keeps only skills of that domain")

			fb, err := b.Feedback(ctx, s.ID, brain.Context{Domain: "software", Task: "t"}, true, map[string]any{"renamed": "cake → service"})
			require.NoError(t, err)
			require.Len(t, fb.Transfers, 1)
			got, ok, err := b.Skill(ctx, s.ID)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, "software", got.Transfers[0].Domain)
			unknown, err := b.Feedback(ctx, "nope", c, true, nil)
			require.NoError(t, err)
			assert.Nil(t, unknown)

			r, err := b.LearnRecipe(ctx, []map[string]any{{"id": "search"}, {"id": "answer"}}, "sequential", c, true, 0.9, "")
			require.NoError(t, err)
			assert.Equal(t, brain.Recipe, r.Type)
			failed, err := b.LearnRecipe(ctx, []map[string]any{{"id": "x"}}, "sequential", c, false, 0.9, "")
			require.NoError(t, err)
			assert.Nil(t, failed, "a failed outcome teaches no new recipe")

			a1, err := b.LearnAnti(ctx, "Using a timeout of 1s", "the model is slow", c, "critical")
			require.NoError(t, err)
			assert.Equal(t, "anti:cooking:using-a-timeout-of-1s", a1.Name)
			a2, err := b.LearnAnti(ctx, "Using a timeout of 1s", "the model is slow", c, "critical")
			require.NoError(t, err)
			assert.Equal(t, a1.ID, a2.ID)
			assert.Less(t, a2.Confidence, a1.Confidence, "a repeated anti-pattern is a failed usage")

			p, err := b.LearnPath(ctx, []string{"search", "validate", "answer"}, 0.9, c, true, nil)
			require.NoError(t, err)
			assert.Equal(t, "path:cooking:search→validate→answer", p.Name)
			assert.InDelta(t, 0.8, p.Confidence, 1e-9)

			types, err := b.Recall(ctx, c, 10, 0, []string{brain.GraphPath}, "")
			require.NoError(t, err)
			require.Len(t, types, 1)
			assert.Equal(t, p.ID, types[0].Skill.ID)

			e1, err := b.RecordEpisode(ctx, &brain.Episode{Input: "bake a sponge cake", Domain: "cooking", Task: "bake",
				Success: false, Summary: "it collapsed", Lessons: []string{"do not open the oven early"}, FailureAnalysis: "oven opened"})
			require.NoError(t, err)
			clk.t = clk.t.Add(48 * time.Hour)
			_, err = b.RecordEpisode(ctx, &brain.Episode{Input: "write a sorting function", Domain: "software", Task: "code", Success: true, Summary: "done"})
			require.NoError(t, err)

			ms, err := b.RecallEpisodes(ctx, "bake a chocolate cake", brain.Context{Domain: "cooking", Task: "bake"}, 5, 0.2, true, "")
			require.NoError(t, err)
			require.NotEmpty(t, ms)
			assert.Equal(t, e1.ID, ms[0].Episode.ID)
			assert.Contains(t, b.Inject(ms, 1500), "[2 days ago, cooking] FAILED: it collapsed\n  Lessons: do not open the oven early")
			succ, err := b.RecallEpisodes(ctx, "bake a chocolate cake", brain.Context{Domain: "cooking", Task: "bake"}, 5, 0, false, "")
			require.NoError(t, err)
			for _, m := range succ {
				assert.True(t, m.Episode.Success, "include_failures: false keeps successes only")
			}
		})
	}
}
