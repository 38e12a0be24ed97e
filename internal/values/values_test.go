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
