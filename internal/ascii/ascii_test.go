package ascii

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIs(t *testing.T) {
	assert.True(t, Is(""))
	assert.True(t, Is("plain text, long enough for the wide loop"))
	for i := 0; i < 20; i++ { // the non-ASCII byte in every position of the wide and tail loops
		s := strings.Repeat("a", i) + "é" + strings.Repeat("b", 19-i)
		assert.False(t, Is(s), "%q", s)
	}
}

func TestPrefix(t *testing.T) {
	assert.Equal(t, 0, Prefix(""))
	for i := 0; i < 20; i++ {
		s := strings.Repeat("a", i) + "é" + strings.Repeat("b", 19-i)
		assert.Equal(t, i, Prefix(s), "%q", s)
	}
	assert.Equal(t, 17, Prefix(strings.Repeat("x", 17)))
}
