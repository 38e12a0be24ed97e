package storetest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

// NewStore returns a store configured by opts. It must honour every field of
// opts (the suite sets Namespace, Now, caps and TTLs) and may share a server
// between calls: the suite gives every store its own namespace.
type NewStore func(t *testing.T, opts memory.Options) memory.Store

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, newStore NewStore) {
	var seq atomic.Int64
	h := func(t *testing.T) *harness {
		t.Helper()
		return &harness{t: t, newStore: newStore, seq: &seq, clock: newClock()}
	}
	for _, tc := range []struct {
		name string
		fn   func(*harness)
	}{
		{"history/append_and_read", testAppendAndRead},
		{"history/limit", testHistoryLimit},
		{"history/unknown_loop", testUnknownLoop},
		{"history/duplicate_append", testDuplicateAppend},
		{"history/replayed_appends", testReplayedAppends},
		{"history/cap", testHistoryCap},
		{"history/concurrent_appenders", testConcurrentAppenders},
		{"history/key_isolation", testKeyIsolation},
		{"history/clear", testClearHistory},
		{"history/invalid", testInvalidHistory},
		{"history/returned_data_is_a_copy", testHistoryCopy},
		{"checkpoint/save_and_load", testCheckpointSaveLoad},
		{"checkpoint/merge_by_path", testCheckpointMerge},
		{"checkpoint/digest_mismatch", testCheckpointDigest},
		{"checkpoint/delete", testCheckpointDelete},
		{"checkpoint/resume_from_last_iteration", testCheckpointResume},
		{"checkpoint/key_isolation", testCheckpointIsolation},
		{"checkpoint/states", testStates},
		{"lease/one_holder", testLease},
		{"lease/expiry", testLeaseExpiry},
		{"memory/keywords_threshold_limit", testRecallKeywords},
		{"memory/metadata_filter", testRecallMetadata},
		{"memory/namespaces", testMemoryNamespaces},
		{"memory/same_content_is_one_memory", testRememberDedup},
		{"memory/explicit_id_replaces", testRememberReplace},
		{"memory/expiry", testMemoryExpiry},
		{"memory/cap", testMemoryCap},
		{"memory/vectors", testRecallVectors},
		{"memory/decay", testRecallDecay},
		{"memory/invalid", testInvalidMemory},
		{"context_cancelled", testCancelled},
		{"closed", testClosed},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(h(t)) })
	}
}

type harness struct {
	t        *testing.T
	newStore NewStore
	seq      *atomic.Int64
	clock    *Clock
}

// store returns a fresh store; tweak adjusts its options.
func (h *harness) store(tweak func(*memory.Options)) memory.Store {
	h.t.Helper()
	opts := memory.Options{
		Namespace: fmt.Sprintf("storetest-%d-%d", time.Now().UnixNano(), h.seq.Add(1)),
		Now:       h.clock.Now,
	}
	if tweak != nil {
		tweak(&opts)
	}
	s := h.newStore(h.t, opts)
	require.NotNil(h.t, s, "newStore returned nil")
	h.t.Cleanup(func() { _ = s.Close() })
	return s
}

// newClock starts at the real time, so that a server never sees a past expiry.
func newClock() *Clock { return NewClock(time.Now().UTC().Truncate(time.Millisecond)) }

func entry(run, path string, iteration int, data string) memory.Entry {
	return memory.Entry{RunID: run, LoopPath: path, Iteration: iteration, Data: []byte(data)}
}

type ident struct {
	run, path string
	iteration int
}

func idents(es []memory.Entry) []ident {
	out := make([]ident, len(es))
	for i, e := range es {
		out[i] = ident{e.RunID, e.LoopPath, e.Iteration}
	}
	return out
}

func testAppendAndRead(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	start := h.clock.Now()
	for i := 1; i <= 3; i++ {
		data := fmt.Sprintf(`{"loop_number": %d, "score": 0.%d, "insights": "x:y*z"}`, i, i)
		require.NoError(t, s.Append(ctx, "improve", entry("run-1", "improve", i, data)))
		h.clock.Advance(time.Second)
	}
	got, err := s.History(ctx, "improve", 0)
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, e := range got {
		n := i + 1
		assert.Equal(t, ident{"run-1", "improve", n}, ident{e.RunID, e.LoopPath, e.Iteration})
		assert.JSONEq(t, fmt.Sprintf(`{"loop_number": %d, "score": 0.%d, "insights": "x:y*z"}`, n, n), string(e.Data))
		assert.True(t, e.At.Equal(start.Add(time.Duration(i)*time.Second)), "entry %d At = %v, want the store clock %v", n, e.At, start.Add(time.Duration(i)*time.Second))
	}

	at := start.Add(-time.Hour)
	e := entry("run-2", "", 1, `[1,"two",null]`)
	e.At = at
	require.NoError(t, s.Append(ctx, "improve", e))
	got, err = s.History(ctx, "improve", 0)
	require.NoError(t, err)
	require.Len(t, got, 4)
	assert.True(t, got[3].At.Equal(at), "a caller's At is kept: got %v want %v", got[3].At, at)
	assert.JSONEq(t, `[1,"two",null]`, string(got[3].Data))
	assert.Equal(t, "", got[3].LoopPath)
}

func testHistoryLimit(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for i := 1; i <= 5; i++ {
		require.NoError(t, s.Append(ctx, "l", entry("r", "l", i, `{}`)))
	}
	for _, tc := range []struct {
		limit int
		want  []int
	}{
		{0, []int{1, 2, 3, 4, 5}},
		{-1, []int{1, 2, 3, 4, 5}},
		{2, []int{4, 5}},
		{1, []int{5}},
		{5, []int{1, 2, 3, 4, 5}},
		{50, []int{1, 2, 3, 4, 5}},
	} {
		got, err := s.History(ctx, "l", tc.limit)
		require.NoError(t, err)
		var its []int
		for _, e := range got {
			its = append(its, e.Iteration)
		}
		assert.Equal(t, tc.want, its, "limit %d", tc.limit)
	}
}

func testUnknownLoop(h *harness) {
	s := h.store(nil)
	got, err := s.History(context.Background(), "never-written", 20)
	require.NoError(h.t, err)
	assert.NotNil(h.t, got, "an unknown loop's history is empty, not nil")
	assert.Empty(h.t, got)
}

func testDuplicateAppend(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Append(ctx, "l", entry("r1", "outer", 1, `{"v":"first"}`)))
	// The same write again (a client retry) and a different payload for the
	// same identity (a resumed run redoing the iteration): no new entry, and
	// the redo replaces the discarded attempt.
	require.NoError(t, s.Append(ctx, "l", entry("r1", "outer", 1, `{"v":"first"}`)))
	require.NoError(t, s.Append(ctx, "l", entry("r1", "outer", 1, `{"v":"second"}`)))
	// Any part of the identity differing makes a new entry.
	require.NoError(t, s.Append(ctx, "l", entry("r2", "outer", 1, `{"v":"other run"}`)))
	require.NoError(t, s.Append(ctx, "l", entry("r1", "outer/inner", 1, `{"v":"other path"}`)))
	require.NoError(t, s.Append(ctx, "l", entry("r1", "outer", 2, `{"v":"next"}`)))
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Equal(t, []ident{
		{"r1", "outer", 1}, {"r2", "outer", 1}, {"r1", "outer/inner", 1}, {"r1", "outer", 2},
	}, idents(got))
	assert.JSONEq(t, `{"v":"second"}`, string(got[0].Data), "the last write wins")
	assert.JSONEq(t, `{"v":"next"}`, string(got[3].Data))
}

func testReplayedAppends(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	var want []ident
	for i := 1; i <= 4; i++ {
		e := entry("r", "p", i, fmt.Sprintf(`{"i":%d}`, i))
		require.NoError(t, s.Append(ctx, "l", e))
		want = append(want, ident{"r", "p", i})
		// Replay every write so far, as a client whose replies were lost would.
		for j := 1; j <= i; j++ {
			require.NoError(t, s.Append(ctx, "l", entry("r", "p", j, fmt.Sprintf(`{"i":%d}`, j))))
		}
	}
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Equal(t, want, idents(got))
	for i, e := range got {
		assert.JSONEq(t, fmt.Sprintf(`{"i":%d}`, i+1), string(e.Data))
	}
}

func testHistoryCap(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(func(o *memory.Options) { o.HistoryCap = 5 })
	for i := 1; i <= 8; i++ {
		require.NoError(t, s.Append(ctx, "capped", entry("r", "capped", i, `{}`)))
	}
	got, err := s.History(ctx, "capped", 0)
	require.NoError(t, err)
	var its []int
	for _, e := range got {
		its = append(its, e.Iteration)
	}
	assert.Equal(t, []int{4, 5, 6, 7, 8}, its, "the cap keeps the newest entries")

	// Replacement still holds for entries inside the window, in place.
	require.NoError(t, s.Append(ctx, "capped", entry("r", "capped", 6, `{"redo":true}`)))
	got, err = s.History(ctx, "capped", 0)
	require.NoError(t, err)
	require.Len(t, got, 5)
	assert.Equal(t, 8, got[4].Iteration)
	assert.Equal(t, 6, got[2].Iteration)
	assert.JSONEq(t, `{"redo":true}`, string(got[2].Data))
}

func testConcurrentAppenders(h *harness) {
	s := h.store(nil)
	ConcurrentAppends(h.t, []memory.Store{s, s, s, s}, 20)
}

// injectionIDs are ids that would collide or address other keys if they
// were pasted into a key unescaped.
var injectionIDs = []string{
	"a", "a:b", "a:b:past_loops", "a:past_loops", "*", "a*", "a?", "[a]", "a b", " a", "a%3Ab",
	"%", "%25", "{tag}", "a\nb", "a\x00b", "ü", "loop:a", "a.b", "A",
}

func testKeyIsolation(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for i, id := range injectionIDs {
		require.NoError(t, s.Append(ctx, id, entry(fmt.Sprintf("run-%d", i), "p", 1, fmt.Sprintf(`{"n":%d}`, i))), "loop id %q", id)
	}
	for i, id := range injectionIDs {
		got, err := s.History(ctx, id, 0)
		require.NoError(t, err)
		require.Len(t, got, 1, "loop id %q sees only its own history", id)
		assert.Equal(t, fmt.Sprintf("run-%d", i), got[0].RunID, "loop id %q", id)
	}
	require.NoError(t, s.ClearHistory(ctx, "*"))
	require.NoError(t, s.ClearHistory(ctx, "a:b"))
	for _, id := range injectionIDs {
		got, err := s.History(ctx, id, 0)
		require.NoError(t, err)
		want := 1
		if id == "*" || id == "a:b" {
			want = 0
		}
		assert.Len(t, got, want, "after clearing %q and %q, loop id %q", "*", "a:b", id)
	}
}

func testClearHistory(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Append(ctx, "l", entry("r", "l", 1, `{"before":true}`)))
	require.NoError(t, s.Append(ctx, "other", entry("r", "other", 1, `{}`)))
	require.NoError(t, s.ClearHistory(ctx, "l"))
	require.NoError(t, s.ClearHistory(ctx, "l"), "clearing twice is harmless")
	require.NoError(t, s.ClearHistory(ctx, "never-written"))
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Empty(t, got)
	// The idempotency record went with the entries: the same identity can be
	// written again after a clear.
	require.NoError(t, s.Append(ctx, "l", entry("r", "l", 1, `{"after":true}`)))
	got, err = s.History(ctx, "l", 0)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.JSONEq(t, `{"after":true}`, string(got[0].Data))
	other, err := s.History(ctx, "other", 0)
	require.NoError(t, err)
	assert.Len(t, other, 1)
}

func testInvalidHistory(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for _, tc := range []struct {
		name string
		loop string
		e    memory.Entry
	}{
		{"empty loop id", "", entry("r", "", 1, `{}`)},
		{"loop id too long", strings.Repeat("x", 513), entry("r", "", 1, `{}`)},
		{"empty run id", "l", entry("", "", 1, `{}`)},
		{"iteration 0", "l", entry("r", "", 0, `{}`)},
		{"data not json", "l", entry("r", "", 1, `{"unterminated`)},
		{"no data", "l", entry("r", "", 1, ``)},
	} {
		err := s.Append(ctx, tc.loop, tc.e)
		assert.ErrorIs(t, err, memory.ErrInvalid, tc.name)
	}
	_, err := s.History(ctx, "", 1)
	assert.ErrorIs(t, err, memory.ErrInvalid)
	assert.ErrorIs(t, s.ClearHistory(ctx, ""), memory.ErrInvalid)
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.Empty(t, got, "rejected appends wrote nothing")
}

func testHistoryCopy(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	e := entry("r", "p", 1, `{"k":"v"}`)
	require.NoError(t, s.Append(ctx, "l", e))
	e.Data[2] = 'X' // the caller reuses its buffer
	got, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	require.Len(t, got, 1)
	got[0].Data[2] = 'Y'
	again, err := s.History(ctx, "l", 0)
	require.NoError(t, err)
	assert.JSONEq(t, `{"k":"v"}`, string(again[0].Data))
}

func state(kv ...string) map[string][]byte {
	m := map[string][]byte{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = []byte(kv[i+1])
	}
	return m
}

func stateStrings(m map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func testCheckpointSaveLoad(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	_, ok, err := s.LoadCheckpoint(ctx, "run-1")
	require.NoError(t, err)
	assert.False(t, ok, "no checkpoint before the first save")

	h.clock.Advance(time.Minute)
	saved := h.clock.Now()
	cp := memory.Checkpoint{
		Digest: "sha256:abc",
		State:  state("improve", `{"iteration":2,"best":0.7}`, "improve/inner:x", "binary\x00ok"),
	}
	require.NoError(t, s.SaveCheckpoint(ctx, "run-1", cp))
	cp.State["improve"][0] = 'X' // the caller's map is not kept
	got, ok, err := s.LoadCheckpoint(ctx, "run-1")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "sha256:abc", got.Digest)
	assert.Equal(t, map[string]string{
		"improve":         `{"iteration":2,"best":0.7}`,
		"improve/inner:x": "binary\x00ok",
	}, stateStrings(got.State))
	assert.True(t, got.UpdatedAt.Equal(saved), "UpdatedAt = %v, want the store clock %v", got.UpdatedAt, saved)

	// An empty state map is a valid save (digest only).
	require.NoError(t, s.SaveCheckpoint(ctx, "run-2", memory.Checkpoint{Digest: "d"}))
	got, ok, err = s.LoadCheckpoint(ctx, "run-2")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "d", got.Digest)
	assert.Empty(t, got.State)
}

func testCheckpointMerge(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("a", `1`)}))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("b", `2`)}))
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d", State: state("a", `3`)}))
	got, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, map[string]string{"a": "3", "b": "2"}, stateStrings(got.State))
}

func testCheckpointDigest(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d1", State: state("a", `1`)}))
	err := s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d2", State: state("a", `2`, "b", `2`)})
	require.ErrorIs(t, err, memory.ErrDigestMismatch)
	assert.Contains(t, err.Error(), `"r"`, "the error names the run")
	got, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "d1", got.Digest)
	assert.Equal(t, map[string]string{"a": "1"}, stateStrings(got.State), "a rejected save changes nothing")

	err = s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d1", State: state("", `x`)})
	assert.ErrorIs(t, err, memory.ErrInvalid, "an empty loop path")
	assert.ErrorIs(t, s.SaveCheckpoint(ctx, "", memory.Checkpoint{}), memory.ErrInvalid, "an empty run id")
}

func testCheckpointDelete(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d1", State: state("a", `1`)}))
	require.NoError(t, s.DeleteCheckpoint(ctx, "r"))
	require.NoError(t, s.DeleteCheckpoint(ctx, "r"), "deleting twice is harmless")
	_, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	assert.False(t, ok)
	// After a delete the run id is free, digest included.
	require.NoError(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{Digest: "d2", State: state("a", `2`)}))
	got, ok, err := s.LoadCheckpoint(ctx, "r")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "d2", got.Digest)
}

func testCheckpointResume(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	// A run saves after each completed iteration and dies during the fourth.
	for i := 1; i <= 3; i++ {
		require.NoError(t, s.Append(ctx, "improve", entry("run-9", "improve", i, fmt.Sprintf(`{"loop_number":%d}`, i))))
		st := fmt.Sprintf(`{"iteration":%d,"best_score":0.%d}`, i, i)
		require.NoError(t, s.SaveCheckpoint(ctx, "run-9", memory.Checkpoint{Digest: "wf", State: state("improve", st)}))
	}
	cp, ok, err := s.LoadCheckpoint(ctx, "run-9")
	require.NoError(t, err)
	require.True(t, ok)
	assert.JSONEq(t, `{"iteration":3,"best_score":0.3}`, string(cp.State["improve"]), "resume continues after iteration 3")
	// The resumed run redoes nothing it had persisted: replaying iteration 3 is a no-op.
	require.NoError(t, s.Append(ctx, "improve", entry("run-9", "improve", 3, `{"loop_number":3}`)))
	require.NoError(t, s.Append(ctx, "improve", entry("run-9", "improve", 4, `{"loop_number":4}`)))
	got, err := s.History(ctx, "improve", 0)
	require.NoError(t, err)
	assert.Len(t, got, 4)
}

func testCheckpointIsolation(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for i, id := range injectionIDs {
		require.NoError(t, s.SaveCheckpoint(ctx, id, memory.Checkpoint{Digest: fmt.Sprint(i)}), "run id %q", id)
	}
	require.NoError(t, s.DeleteCheckpoint(ctx, "*"))
	for i, id := range injectionIDs {
		got, ok, err := s.LoadCheckpoint(ctx, id)
		require.NoError(t, err)
		if id == "*" {
			assert.False(t, ok)
			continue
		}
		require.True(t, ok, "run id %q", id)
		assert.Equal(t, fmt.Sprint(i), got.Digest, "run id %q", id)
	}
}

func contents(ms []memory.Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Memory.Content
	}
	return out
}

func testRecallKeywords(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for _, c := range []string{"Paris is the capital of France", "Berlin is the capital of Germany", "Bananas are yellow"} {
		require.NoError(t, s.Remember(ctx, "facts", memory.Memory{Content: c, Metadata: map[string]string{"source": "test"}}))
		h.clock.Advance(time.Second)
	}
	for _, tc := range []struct {
		name string
		q    memory.Query
		want []string
	}{
		{"threshold keeps full overlap", memory.Query{Text: "capital of France?", Threshold: 0.6},
			[]string{"Paris is the capital of France"}},
		{"lower threshold admits partial overlap", memory.Query{Text: "the capital of France", Threshold: 0.5},
			[]string{"Paris is the capital of France", "Berlin is the capital of Germany"}},
		{"threshold 0 ranks all, ties newest first", memory.Query{Text: "FRANCE capitals"},
			[]string{"Paris is the capital of France", "Berlin is the capital of Germany", "Bananas are yellow"}},
		{"limit", memory.Query{Text: "capital", Limit: 1},
			[]string{"Berlin is the capital of Germany"}},
		{"no keyword in common", memory.Query{Text: "quantum chromodynamics", Threshold: 0.1}, []string{}},
		{"empty query is most recent first", memory.Query{Limit: 2},
			[]string{"Bananas are yellow", "Berlin is the capital of Germany"}},
	} {
		got, err := s.Recall(ctx, "facts", tc.q)
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, contents(got), tc.name)
	}
	got, err := s.Recall(ctx, "facts", memory.Query{Text: "capital of France"})
	require.NoError(t, err)
	require.NotEmpty(t, got)
	assert.InDelta(t, 1.0, got[0].Similarity, 1e-9)
	assert.InDelta(t, 0.5, got[1].Similarity, 1e-9)
	assert.Equal(t, map[string]string{"source": "test"}, got[0].Memory.Metadata)
	assert.NotEmpty(t, got[0].Memory.ID)
	assert.False(t, got[0].Memory.CreatedAt.IsZero())
}

func testRecallMetadata(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "loop scores rose", Metadata: map[string]string{"category": "stored", "type": "episodic"}}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "loop scores fell", Metadata: map[string]string{"category": "log"}}))
	got, err := s.Recall(ctx, "ns", memory.Query{Text: "loop scores", Metadata: map[string]string{"category": "stored"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"loop scores rose"}, contents(got))
	got, err = s.Recall(ctx, "ns", memory.Query{Text: "loop scores", Metadata: map[string]string{"category": "stored", "type": "semantic"}})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func testMemoryNamespaces(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for _, ns := range injectionIDs {
		require.NoError(t, s.Remember(ctx, ns, memory.Memory{Content: "note for " + ns}), "namespace %q", ns)
	}
	for _, ns := range injectionIDs {
		got, err := s.Recall(ctx, ns, memory.Query{})
		require.NoError(t, err)
		assert.Equal(t, []string{"note for " + ns}, contents(got), "namespace %q", ns)
	}
	other := h.store(nil) // same server (if any), another store namespace
	got, err := other.Recall(ctx, "a", memory.Query{})
	require.NoError(t, err)
	assert.Empty(t, got, "store namespaces are isolated")
}

func testRememberDedup(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	m := memory.Memory{Content: "use shorter prompts", Metadata: map[string]string{"k": "v"}}
	require.NoError(t, s.Remember(ctx, "ns", m))
	h.clock.Advance(time.Minute)
	later := h.clock.Now()
	require.NoError(t, s.Remember(ctx, "ns", m))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "use shorter prompts", Metadata: map[string]string{"k": "other"}}))
	got, err := s.Recall(ctx, "ns", memory.Query{Text: "shorter prompts"})
	require.NoError(t, err)
	require.Len(t, got, 2, "same content and metadata is one memory; other metadata is another")
	var same memory.Memory
	for _, g := range got {
		if g.Memory.Metadata["k"] == "v" {
			same = g.Memory
		}
	}
	assert.True(t, same.CreatedAt.Equal(later), "the rewrite refreshed the memory: %v, want %v", same.CreatedAt, later)
}

func testRememberReplace(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{ID: "fact:1", Content: "the sky is green"}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{ID: "fact:1", Content: "the sky is blue"}))
	got, err := s.Recall(ctx, "ns", memory.Query{Text: "sky"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "fact:1", got[0].Memory.ID)
	assert.Equal(t, "the sky is blue", got[0].Memory.Content)
}

func testMemoryExpiry(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(func(o *memory.Options) { o.MemoryTTL = time.Hour })
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "default ttl note"}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "explicit expiry note", ExpiresAt: h.clock.Now().Add(10 * time.Minute)}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "long-lived note", ExpiresAt: h.clock.Now().Add(48 * time.Hour)}))
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "already expired note", ExpiresAt: h.clock.Now().Add(-time.Second)}))
	recall := func() []string {
		got, err := s.Recall(ctx, "ns", memory.Query{Text: "note"})
		require.NoError(t, err)
		return contents(got)
	}
	assert.ElementsMatch(t, []string{"default ttl note", "explicit expiry note", "long-lived note"}, recall())
	h.clock.Advance(10 * time.Minute)
	assert.ElementsMatch(t, []string{"default ttl note", "long-lived note"}, recall(), "expired at exactly ExpiresAt")
	h.clock.Advance(time.Hour)
	assert.Equal(t, []string{"long-lived note"}, recall())
	got, err := s.Recall(ctx, "ns", memory.Query{Text: "note"})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.True(t, got[0].Memory.ExpiresAt.After(h.clock.Now()))
}

func testMemoryCap(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(func(o *memory.Options) { o.MemoryCap = 3 })
	for i := 1; i <= 5; i++ {
		require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: fmt.Sprintf("note %d", i)}))
		h.clock.Advance(time.Second)
	}
	got, err := s.Recall(ctx, "ns", memory.Query{})
	require.NoError(t, err)
	assert.Equal(t, []string{"note 5", "note 4", "note 3"}, contents(got))
}

func testRecallVectors(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	for _, m := range []memory.Memory{
		{Content: "east", Vector: []float32{1, 0}},
		{Content: "north", Vector: []float32{0, 1}},
		{Content: "north-east", Vector: []float32{0.7, 0.7}},
		{Content: "west", Vector: []float32{-1, 0}},
		{Content: "no vector east"},
	} {
		require.NoError(t, s.Remember(ctx, "vec", m))
	}
	got, err := s.Recall(ctx, "vec", memory.Query{Vector: []float32{2, 0}, Threshold: 0.5})
	require.NoError(t, err)
	assert.Equal(t, []string{"east", "north-east"}, contents(got))
	require.Len(t, got, 2)
	assert.InDelta(t, 1.0, got[0].Similarity, 1e-6)
	assert.InDelta(t, 0.7071, got[1].Similarity, 1e-3)
	assert.Equal(t, []float32{1, 0}, got[0].Memory.Vector)
}

func testRecallDecay(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "token budget exceeded in loop"}))
	h.clock.Advance(10 * time.Hour)
	require.NoError(t, s.Remember(ctx, "ns", memory.Memory{Content: "token budget"}))
	q := memory.Query{Text: "loop token budget"}
	got, err := s.Recall(ctx, "ns", q)
	require.NoError(t, err)
	assert.Equal(t, []string{"token budget exceeded in loop", "token budget"}, contents(got), "without decay relevance wins")
	q.HalfLife = time.Hour
	got, err = s.Recall(ctx, "ns", q)
	require.NoError(t, err)
	assert.Equal(t, []string{"token budget", "token budget exceeded in loop"}, contents(got), "with a 1h half-life the 10h-old memory sinks")
	require.Len(t, got, 2)
	assert.InDelta(t, 1.0, got[1].Similarity, 1e-9, "decay does not change similarity")
	assert.InDelta(t, 1.0/1024, got[1].Score, 1e-9)
}

func testInvalidMemory(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	assert.ErrorIs(t, s.Remember(ctx, "", memory.Memory{Content: "x"}), memory.ErrInvalid)
	assert.ErrorIs(t, s.Remember(ctx, "ns", memory.Memory{}), memory.ErrInvalid)
	_, err := s.Recall(ctx, "", memory.Query{})
	assert.ErrorIs(t, err, memory.ErrInvalid)
	got, err := s.Recall(ctx, "never-written", memory.Query{})
	require.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got)
}

func testCancelled(h *harness) {
	t := h.t
	s := h.store(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, s.Append(ctx, "l", entry("r", "", 1, `{}`)), context.Canceled)
	_, err := s.History(ctx, "l", 0)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{}), context.Canceled)
	_, _, err = s.LoadCheckpoint(ctx, "r")
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, s.Remember(ctx, "ns", memory.Memory{Content: "x"}), context.Canceled)
	_, err = s.Recall(ctx, "ns", memory.Query{})
	assert.ErrorIs(t, err, context.Canceled)
	got, err := s.History(context.Background(), "l", 0)
	require.NoError(t, err)
	assert.Empty(t, got, "a cancelled append wrote nothing")
}

func testClosed(h *harness) {
	t, ctx := h.t, context.Background()
	s := h.store(nil)
	require.NoError(t, s.Append(ctx, "l", entry("r", "", 1, `{}`)))
	require.NoError(t, s.Close())
	assert.NotPanics(t, func() { _ = s.Close() })
	assert.ErrorIs(t, s.Append(ctx, "l", entry("r", "", 2, `{}`)), memory.ErrClosed)
	_, err := s.History(ctx, "l", 0)
	assert.ErrorIs(t, err, memory.ErrClosed)
	assert.ErrorIs(t, s.ClearHistory(ctx, "l"), memory.ErrClosed)
	assert.ErrorIs(t, s.SaveCheckpoint(ctx, "r", memory.Checkpoint{}), memory.ErrClosed)
	_, _, err = s.LoadCheckpoint(ctx, "r")
	assert.ErrorIs(t, err, memory.ErrClosed)
	assert.ErrorIs(t, s.DeleteCheckpoint(ctx, "r"), memory.ErrClosed)
	assert.ErrorIs(t, s.Remember(ctx, "ns", memory.Memory{Content: "x"}), memory.ErrClosed)
	_, err = s.Recall(ctx, "ns", memory.Query{})
	assert.ErrorIs(t, err, memory.ErrClosed)
}
