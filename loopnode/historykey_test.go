package loopnode_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/memory"
)

// tenant is persistLoop in workflow id with extra loop keys.
func tenant(id, extra string) string {
	src := strings.Replace(strings.ReplaceAll(persistLoop, "LOOP", "improve"), "{id: p,", "{id: "+id+",", 1)
	return strings.Replace(src, "    persist_across_runs: true\n", "    persist_across_runs: true\n"+extra, 1)
}

// Two workflows whose loops share an id keep separate histories in one
// store; naming the same history_key shares one on purpose.
func TestHistoryIsScopedByWorkflow(t *testing.T) {
	ctx := context.Background()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	run := func(src string) []any {
		wf, err := cogloop.Parse([]byte(src), "tenant.yaml")
		require.NoError(t, err)
		res, err := wf.Run(ctx, "x", cogloop.WithMemory(store), cogloop.WithModels(&promptModels{}))
		require.NoError(t, err)
		out, _ := res.Outputs.Get("improve")
		return out.Map()["past_loops"].([]any)
	}
	assert.Len(t, run(tenant("tenant-a", "")), 2)
	assert.Len(t, run(tenant("tenant-b", "")), 2, "tenant b does not see tenant a's passes")
	assert.Len(t, run(tenant("tenant-a", "")), 4, "tenant a sees its own")

	for id, want := range map[string]int{memory.HistoryID("tenant-a", "improve"): 4, memory.HistoryID("tenant-b", "improve"): 2, "improve": 0} {
		h, err := store.History(ctx, id, 0)
		require.NoError(t, err)
		assert.Len(t, h, want, id)
	}

	assert.Len(t, run(tenant("tenant-c", "    history_key: shared-lessons\n")), 2)
	assert.Len(t, run(tenant("tenant-d", "    history_key: shared-lessons\n")), 4, "the same history_key shares")
	h, err := store.History(ctx, "shared-lessons", 0)
	require.NoError(t, err)
	assert.Len(t, h, 4)
}

func TestHistoryKeyProblems(t *testing.T) {
	_, err := cogloop.Parse([]byte(tenant("a", "    history_key: \"\"\n")), "k.yaml")
	require.ErrorContains(t, err, "k.yaml:")
	assert.ErrorContains(t, err, "history_key must not be empty")

	src := strings.Replace(tenant("a", ""), "    persist_across_runs: true\n", "    history_key: k\n", 1)
	wf, err := cogloop.Parse([]byte(src), "k.yaml")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Contains(t, wf.Warnings[0].Error(), "history_key has no effect without persist_across_runs")
}

func TestHistoryIDIsOneToOne(t *testing.T) {
	assert.Equal(t, "loop", memory.HistoryID("", "loop"))
	assert.Equal(t, "quality/improve", memory.HistoryID("quality", "improve"))
	assert.NotEqual(t, memory.HistoryID("a/b", "c"), memory.HistoryID("a", "b/c"))
	assert.Equal(t, "a%2Fb/c", memory.HistoryID("a/b", "c"))
}
