package agents_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
)

func TestOutputsSnapshotsStayAsTheyWere(t *testing.T) {
	base := (*agents.Outputs)(nil).With("a", agents.Output{Response: 1})
	newer := base.With("b", agents.Output{Response: 2}) // extends base's log in place
	other := base.With("c", agents.Output{Response: 3}) // base is no longer the newest: a copy
	again := newer.With("a", agents.Output{Response: 4})

	assert.Equal(t, []string{"a"}, base.IDs())
	assert.Equal(t, 1, base.Len())
	assert.Equal(t, []string{"a", "b"}, newer.IDs())
	assert.Equal(t, []string{"a", "c"}, other.IDs())
	_, ok := newer.Get("c")
	assert.False(t, ok, "a sibling's record is not seen")
	_, ok = other.Get("b")
	assert.False(t, ok)

	assert.Equal(t, []string{"a", "b"}, again.IDs(), "a repeated id keeps its place")
	assert.Equal(t, 2, again.Len())
	a, _ := again.Get("a")
	assert.Equal(t, 4, a.Response, "and takes the new output")
	a, _ = newer.Get("a")
	assert.Equal(t, 1, a.Response, "older snapshots keep the old one")
	id, last, ok := again.Last()
	assert.True(t, ok)
	assert.Equal(t, "b", id, "Last is the last id in run order")
	assert.Equal(t, 2, last.Response)
	var seen []any
	again.Each(func(id string, o agents.Output) bool { seen = append(seen, id, o.Response); return true })
	assert.Equal(t, []any{"a", 4, "b", 2}, seen)
	assert.Equal(t, map[string]any{"a": map[string]any{"response": 4}, "b": map[string]any{"response": 2}}, again.Map())
}

func TestOutputsConcurrentBranchesExtendOneSnapshot(t *testing.T) {
	base := (*agents.Outputs)(nil).With("start", agents.Output{Response: 0})
	const branches = 8
	got := make([]*agents.Outputs, branches)
	var wg sync.WaitGroup
	for i := range branches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := base
			for j := range 5 {
				p = p.With(fmt.Sprintf("b%d_%d", i, j), agents.Output{Response: i*10 + j})
				_ = p.Map()
			}
			got[i] = p
		}()
	}
	wg.Wait()
	for i, p := range got {
		require.Equal(t, 6, p.Len())
		ids := p.IDs()
		assert.Equal(t, "start", ids[0])
		for j := range 5 {
			o, ok := p.Get(fmt.Sprintf("b%d_%d", i, j))
			require.True(t, ok)
			assert.Equal(t, i*10+j, o.Response)
		}
		_, ok := p.Get(fmt.Sprintf("b%d_0", (i+1)%branches))
		assert.False(t, ok, "branch %d sees only its own records", i)
	}
	assert.Equal(t, 1, base.Len())
}

// TestOutputsAgainstAModel extends random earlier snapshots with ids drawn
// from a small set, past the size where a log starts indexing its ids, and
// checks every snapshot against a plain ordered list after each step.
func TestOutputsAgainstAModel(t *testing.T) {
	type entry struct {
		id string
		v  int
	}
	with := func(m []entry, id string, v int) []entry {
		out := append([]entry(nil), m...)
		for i := range out {
			if out[i].id == id {
				out[i].v = v
				return out
			}
		}
		return append(out, entry{id, v})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	snaps := []*agents.Outputs{nil}
	models := [][]entry{nil}
	for step := range 400 {
		k := len(snaps) - 1
		if rng.IntN(3) == 0 { // an older snapshot: its log is copied
			k = rng.IntN(len(snaps))
		}
		id := fmt.Sprintf("a%d", rng.IntN(14))
		snaps = append(snaps, snaps[k].With(id, agents.Output{Response: step}))
		models = append(models, with(models[k], id, step))
		for _, j := range []int{k, len(snaps) - 1, rng.IntN(len(snaps))} {
			p, m := snaps[j], models[j]
			require.Equal(t, len(m), p.Len(), "snapshot %d after step %d", j, step)
			var ids []string
			for _, e := range m {
				ids = append(ids, e.id)
				o, ok := p.Get(e.id)
				require.True(t, ok)
				require.Equal(t, e.v, o.Response, "snapshot %d, %s", j, e.id)
			}
			require.Equal(t, ids, p.IDs())
			if len(m) > 0 {
				id, o, _ := p.Last()
				require.Equal(t, m[len(m)-1].id, id)
				require.Equal(t, m[len(m)-1].v, o.Response)
			}
			_, ok := p.Get("never")
			require.False(t, ok)
		}
	}
}

func TestOutputsDropMapsLetsGoOfTheSharedMaps(t *testing.T) {
	outs := (*agents.Outputs)(nil).With("a", agents.Output{Response: 1}).With("b", agents.Output{Response: 2})
	maps := func() map[string]map[string]any {
		m := map[string]map[string]any{}
		outs.EachMap(func(id string, v map[string]any) bool { m[id] = v; return true })
		return m
	}
	same := func(x, y map[string]any) bool { return reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer() }
	first, again := maps(), maps()
	require.Len(t, first, 2)
	assert.True(t, same(first["a"], again["a"]), "a kept map is handed out again")

	outs.DropMaps()
	after := maps()
	assert.Equal(t, first, after, "the maps made again read the same")
	assert.False(t, same(first["a"], after["a"]), "the dropped map is not kept")
	assert.True(t, same(after["b"], maps()["b"]), "the new map is kept until the next drop")
	assert.Equal(t, map[string]any{"response": 1}, first["a"], "a map handed out before the drop stays as it was")
	(*agents.Outputs)(nil).DropMaps() // no outputs: nothing to drop
}
