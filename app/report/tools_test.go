package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/internal/htmlnode"
)

// Each pass lists its tool calls: tool, arguments and a clipped result, all
// as text.
func TestPassesListTheirToolCalls(t *testing.T) {
	s := summary(t, "testdata/tools_loop.yaml", "testdata/tools_loop_replies.yaml", "pears")
	require.Len(t, s.Loops, 1)
	require.Len(t, s.Loops[0].Passes, 2)
	p1 := s.Loops[0].Passes[0]
	require.Len(t, p1.Tools, 2)
	assert.Len(t, s.Loops[0].Passes[1].Tools, 1)

	doc, page := render(t, s)
	rows := htmlnode.All(doc, htmlnode.Class("tr", "tool"))
	require.Len(t, rows, 3)
	assert.Empty(t, htmlnode.All(doc, htmlnode.Tag("script")), "arguments are text")
	assert.Contains(t, page, "&lt;b&gt;known&lt;/b&gt; fact")
	assert.Contains(t, htmlnode.Text(doc), `there is no tool "nosuch"`)
	failed := htmlnode.All(doc, htmlnode.Class("tr", "failed"))
	assert.Len(t, failed, 1, "the call to a tool not offered is marked")
}
