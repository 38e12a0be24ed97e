package cognition

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNestedQuantifier(t *testing.T) {
	tests := []struct {
		expr  string
		at    int
		group string
	}{
		{`(a+)+`, 0, `(a+)+`},
		{`(a*)*`, 0, `(a*)*`},
		{`x(a|a)*y`, 1, `(a|a)*`},
		{`(a|ab)+`, 0, `(a|ab)+`},
		{`^(?:\s*\w+)*$`, 1, `(?:\s*\w+)*`},
		{`((a+)b)+`, 0, `((a+)b)+`},
		{`(\d+){2,}`, 0, `(\d+){2,}`},
		{`(?P<n>[a-z]+)+`, 0, `(?P<n>[a-z]+)+`},
	}
	for _, tc := range tests {
		at, group, ok := NestedQuantifier(tc.expr)
		assert.True(t, ok, tc.expr)
		assert.Equal(t, tc.at, at, tc.expr)
		assert.Equal(t, tc.group, group, tc.expr)
	}
	for _, expr := range []string{
		`(a+)`, `(a+)?`, `(ab|cd)*`, `[(a+)]+`, `\(a+\)+`, `(a{2})+`, `(.+?)(?:\n|$)`,
		`SCORE:\s*([0-9.]+)`, `(?:lacks?|needs?)\s+(.+?)`, `(a+){1,3}`} {
		_, _, ok := NestedQuantifier(expr)
		assert.False(t, ok, expr)
	}
}
