package scripted_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/scripted"
)

// mcp:NAME keys stand in for MCP servers: each tool answers from its own
// replies; they are no agents of the script.
func TestServerStandIns(t *testing.T) {
	s, err := scripted.Parse([]byte(`
writer: [hi]
"mcp:fs":
  read_text_file: ["a", {error: "ENOENT"}]
  list: {cycle: ["x"]}
`), "s.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"writer"}, s.Agents())
	assert.Equal(t, []string{"fs"}, s.Servers())
	tools := s.ServerStandIns()["fs"]
	require.Len(t, tools, 2)
	r, err := tools["read_text_file"].Generate(context.Background(), agents.Request{})
	require.NoError(t, err)
	assert.Equal(t, "a", r.Text)
	_, err = tools["read_text_file"].Generate(context.Background(), agents.Request{})
	assert.ErrorContains(t, err, "ENOENT")
	_, err = tools["read_text_file"].Generate(context.Background(), agents.Request{})
	assert.ErrorIs(t, err, scripted.ErrExhausted)
	for range 3 {
		r, err = tools["list"].Generate(context.Background(), agents.Request{})
		require.NoError(t, err)
		assert.Equal(t, "x", r.Text)
	}

	for src, want := range map[string]string{
		`"mcp:fs": [a]`:               `s.yaml:1:11: script: mcp server "fs" must map each tool it stands in for to its replies`,
		`"mcp:fs": {"bad tool": [a]}`: `s.yaml:1:12: script: mcp server "fs": "bad tool" is not a tool name`,
		`"mcp:fs": {read: 3}`:         `script: mcp server "fs": tool "read"`,
	} {
		_, err := scripted.Parse([]byte(src+"\n"), "s.yaml")
		require.Error(t, err, src)
		assert.Contains(t, err.Error(), want, src)
	}
}
