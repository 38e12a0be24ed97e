package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The command's doc comment (main.go) names every command of the usage text.
func TestDocListsEveryCommand(t *testing.T) {
	src, err := os.ReadFile("main.go")
	require.NoError(t, err)
	doc, _, ok := strings.Cut(string(src), "\npackage main")
	require.True(t, ok)
	_, list, ok := strings.Cut(usage, "commands:\n")
	require.True(t, ok)
	list, _, _ = strings.Cut(list, "\n\n")
	n := 0
	for _, line := range strings.Split(list, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n++
		assert.Regexp(t, `[ |]`+fields[0]+`( |$)`, doc, "main.go's doc comment lists %q", fields[0])
	}
	assert.Greater(t, n, 10, "the usage text lists the commands")
}
