package fault_test

import (
	"testing"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/stretchr/testify/assert"
)

func TestJoinPathSkipsEmptyParts(t *testing.T) {
	for _, c := range []struct {
		parts []string
		want  string
	}{
		{nil, ""},
		{[]string{"", ""}, ""},
		{[]string{"loop"}, "loop"},
		{[]string{"", "loop", ""}, "loop"},
		{[]string{"loop", "iteration 2"}, "loop › iteration 2"},
		{[]string{"loop", "", "iteration 2", "critic"}, "loop › iteration 2 › critic"},
	} {
		assert.Equal(t, c.want, fault.JoinPath(c.parts...), "%q", c.parts)
	}
}
