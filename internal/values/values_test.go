package values

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAsMap(t *testing.T) {
	m, ok := AsMap(map[string]bool{"a": true})
	assert.True(t, ok)
	assert.Equal(t, map[string]any{"a": true}, m)
	in := map[string]any{"x": 1}
	m, ok = AsMap(in)
	assert.True(t, ok)
	assert.Equal(t, in, m)
	for _, v := range []any{nil, map[string]any(nil), map[int]any{1: 2}, "s", []any{1}} {
		_, ok := AsMap(v)
		assert.False(t, ok, "%#v", v)
	}
}

func TestList(t *testing.T) {
	assert.Equal(t, []any{"a", "b"}, List([]string{"a", "b"}))
	assert.Equal(t, []any{map[string]any{"x": 1}}, List([]map[string]any{{"x": 1}}))
	got := List[string](nil)
	assert.NotNil(t, got, "no items is an empty list, not nil")
	assert.Empty(t, got)
	src := []string{"a"}
	out := List(src)
	src[0] = "changed"
	assert.Equal(t, []any{"a"}, out, "a copy")
}
