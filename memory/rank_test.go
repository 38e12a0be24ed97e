package memory_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cogloop/cogloop/memory"
)

func TestRankKeywords(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	mem := func(id, content string) memory.Memory {
		return memory.Memory{ID: id, Content: content, CreatedAt: now}
	}
	for _, tc := range []struct {
		name  string
		query string
		doc   string
		want  float64
	}{
		{"all query words present", "capital of France", "Paris is the capital of France.", 1},
		{"half", "capital France", "the capital of Germany", 0.5},
		{"case and punctuation ignored", "LOOP-scores!", "loop: scores", 1},
		{"plural s trimmed", "loops", "one loop", 1},
		{"double s kept", "class", "clas", 0}, //nolint:misspell // "clas" is the stem under test
		{"stop words ignored", "what is the score", "score", 1},
		{"only stop words", "what is the", "what is the", 0},
		{"digits count", "iteration 42", "iteration 42 failed", 1},
		{"unicode letters", "über größe", "Größe über alles", 1},
		{"no overlap", "alpha", "beta", 0},
	} {
		got := memory.Rank(memory.Query{Text: tc.query}, now, []memory.Memory{mem("m", tc.doc)})
		if assert.Len(t, got, 1, tc.name) {
			assert.InDelta(t, tc.want, got[0].Similarity, 1e-9, tc.name)
		}
	}
}

func TestRankOrderAndCopies(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	ms := []memory.Memory{
		{ID: "b", Content: "budget", CreatedAt: now.Add(-time.Hour), Metadata: map[string]string{"k": "v"}},
		{ID: "a", Content: "budget", CreatedAt: now.Add(-time.Hour)},
		{ID: "c", Content: "budget", CreatedAt: now},
		{ID: "x", Content: "budget", CreatedAt: now, ExpiresAt: now},
	}
	got := memory.Rank(memory.Query{Text: "budget"}, now, ms)
	var ids []string
	for _, m := range got {
		ids = append(ids, m.Memory.ID)
	}
	assert.Equal(t, []string{"c", "a", "b"}, ids, "ties: newest first, then id; expired dropped")
	got[2].Memory.Metadata["k"] = "changed"
	assert.Equal(t, "v", ms[0].Metadata["k"], "Rank returns copies")
	assert.NotNil(t, memory.Rank(memory.Query{Text: "x", Threshold: 1}, now, nil))
}

func TestPrepareMemory(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	a, err := memory.PrepareMemory(memory.Memory{Content: "x", Metadata: map[string]string{"a": "1", "b": "2"}}, now, time.Hour)
	assert.NoError(t, err)
	b, err := memory.PrepareMemory(memory.Memory{Content: "x", Metadata: map[string]string{"b": "2", "a": "1"}}, now.Add(time.Minute), 0)
	assert.NoError(t, err)
	c, err := memory.PrepareMemory(memory.Memory{Content: "x", Metadata: map[string]string{"a": "1b", "": "2"}}, now, 0)
	assert.NoError(t, err)
	assert.Len(t, a.ID, 32)
	assert.Equal(t, a.ID, b.ID, "the id depends on content and metadata only")
	assert.NotEqual(t, a.ID, c.ID, "field boundaries are part of the hash")
	assert.Equal(t, now, a.CreatedAt)
	assert.Equal(t, now.Add(time.Hour), a.ExpiresAt)
	assert.True(t, b.ExpiresAt.IsZero())
	_, err = memory.PrepareMemory(memory.Memory{}, now, 0)
	assert.ErrorIs(t, err, memory.ErrInvalid)
}
