package textdist

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBounded(t *testing.T) {
	for _, c := range []struct {
		a, b string
		k    int
		want int
	}{
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // above k: some value above k
		{"", "abc", 3, 3},
		{"héllo", "hello", 1, 1}, // runes, not bytes
		{"same", "same", 0, 0},
	} {
		got := Bounded([]rune(c.a), []rune(c.b), c.k)
		if c.want > c.k {
			assert.Greater(t, got, c.k, "%q %q", c.a, c.b)
		} else {
			assert.Equal(t, c.want, got, "%q %q", c.a, c.b)
		}
	}
}

func TestTypo(t *testing.T) {
	assert.Equal(t, 1, Typo("promtp", "prompt"), "a transposition is one edit")
	assert.Equal(t, 1, Typo("promt", "prompt"))
	assert.Equal(t, 3, Typo("kitten", "sitting"))
	assert.Equal(t, 0, Typo("", ""))
}
