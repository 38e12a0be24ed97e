package memory_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/memory"
)

func TestKeySchema(t *testing.T) {
	ks, err := memory.NewKeyspace("cogloop", "prod")
	require.NoError(t, err)
	for _, tc := range []struct {
		kind memory.Kind
		id   string
		want string
	}{
		{memory.KindPastLoops, "improvement_loop", "cogloop:prod:loop:improvement_loop:past_loops"},
		{memory.KindPastLoopIDs, "improvement_loop", "cogloop:prod:loop:improvement_loop:past_loop_ids"},
		{memory.KindCheckpoint, "run-1.2", "cogloop:prod:run:run-1.2:checkpoint"},
		{memory.KindMemories, "episodic", "cogloop:prod:mem:episodic:memories"},
		{memory.KindMemoryCreated, "episodic", "cogloop:prod:mem:episodic:created"},
		{memory.KindMemoryExpires, "episodic", "cogloop:prod:mem:episodic:expires"},
	} {
		got, err := ks.Key(tc.kind, tc.id)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
	}
}

// TestKeyInjection feeds ids that would inject into or collide in a naive
// key and checks that every key has exactly five ':'-separated parts, no
// glob or hash-tag character in the id part, and no two ids share a key.
func TestKeyInjection(t *testing.T) {
	ks, err := memory.NewKeyspace("cogloop", "default")
	require.NoError(t, err)
	tests := []struct {
		name, id, wantID string
	}{
		{"plain", "loop_1", "loop_1"},
		{"colon", "a:b", "a%3Ab"},
		{"colon that mimics a field", "x:past_loops", "x%3Apast_loops"},
		{"whole key inside", "cogloop:default:loop:x:past_loops", "cogloop%3Adefault%3Aloop%3Ax%3Apast_loops"},
		{"star", "*", "%2A"},
		{"glob", "a?[bc]", "a%3F%5Bbc%5D"},
		{"space", "my loop", "my%20loop"},
		{"percent is escaped too", "a%3Ab", "a%253Ab"},
		{"hash tag", "{x}", "%7Bx%7D"},
		{"newline and nul", "a\nb\x00", "a%0Ab%00"},
		{"unicode", "ü", "%C3%BC"},
		{"dots and dashes stay", "a.b-c", "a.b-c"},
		{"case matters", "A", "A"},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := ks.Key(memory.KindPastLoops, tc.id)
			require.NoError(t, err)
			parts := strings.Split(key, ":")
			require.Len(t, parts, 5, key)
			assert.Equal(t, []string{"cogloop", "default", "loop"}, parts[:3])
			assert.Equal(t, tc.wantID, parts[3])
			assert.Equal(t, "past_loops", parts[4])
			assert.NotContainsf(t, parts[3], "*", "glob in %q", key)
			assert.False(t, strings.ContainsAny(parts[3], "*?[]{} \n\x00"), "unsafe byte in %q", key)
			if other, dup := seen[key]; dup {
				t.Fatalf("ids %q and %q share key %q", other, tc.id, key)
			}
			seen[key] = tc.id
		})
	}
}

func TestKeyRejects(t *testing.T) {
	ks, err := memory.NewKeyspace("p", "n")
	require.NoError(t, err)
	for _, id := range []string{"", strings.Repeat("x", 513)} {
		_, err := ks.Key(memory.KindPastLoops, id)
		assert.ErrorIs(t, err, memory.ErrInvalid, "id of %d bytes", len(id))
	}
	_, err = ks.Key(memory.KindPastLoops, strings.Repeat("x", 512))
	assert.NoError(t, err)
	_, err = ks.Key(memory.Kind(99), "x")
	assert.ErrorIs(t, err, memory.ErrInvalid)
	_, err = memory.Keyspace{}.Key(memory.KindPastLoops, "x")
	assert.ErrorIs(t, err, memory.ErrInvalid, "the zero Keyspace")
	for _, bad := range [][2]string{{"", "n"}, {"p", ""}, {"a:b", "n"}, {"p", "a*"}, {"p", "a b"}, {strings.Repeat("p", 65), "n"}} {
		_, err := memory.NewKeyspace(bad[0], bad[1])
		assert.ErrorIs(t, err, memory.ErrInvalid, "prefix %q namespace %q", bad[0], bad[1])
	}
}

func TestLoopKeys(t *testing.T) {
	ks, err := memory.NewKeyspace("cogloop", "default")
	require.NoError(t, err)
	keys, err := ks.LoopKeys("a b")
	require.NoError(t, err)
	assert.Equal(t, []string{"cogloop:default:loop:a%20b:past_loops", "cogloop:default:loop:a%20b:past_loop_ids"}, keys)
}

func TestBrainIDEscapes(t *testing.T) {
	if got := memory.BrainID("skill", "a:b c"); got != "skill:a%3Ab%20c" {
		t.Fatalf("BrainID = %q", got)
	}
	if memory.BrainID("skill", "a:b") == memory.BrainID("skill:a", "b") {
		t.Fatal("two items share an id")
	}
}
