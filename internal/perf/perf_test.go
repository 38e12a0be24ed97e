package perf

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParse(t *testing.T) {
	assert.Empty(t, parse(""))
	m := parse(" fastrender, pool ,")
	assert.True(t, m[FastRender] && m[Pool])
	assert.False(t, m[PlainJSON])
	all := parse("all")
	for _, n := range Names {
		assert.True(t, all[n], n)
	}
}

func TestUnknown(t *testing.T) {
	saved := off
	t.Cleanup(func() { off = saved })
	off = parse("pool,fastrendr")
	assert.Equal(t, []string{"fastrendr"}, Unknown())
	assert.True(t, Off(Pool))
	assert.False(t, Off(FastRender))
}
