package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodePackage is the path of a file of an npm package installed in
// testdata/node (npm ci there; .ci/run does it). A missing package skips the
// test, and fails it under CI=true.
func nodePackage(t *testing.T, file string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "node", "node_modules", file))
	require.NoError(t, err)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: run npm ci in mcp/testdata/node (.ci/run does)", file)
		}
		t.Skipf("%s is not installed: run npm ci in mcp/testdata/node", file)
	}
	return p
}

// The reference server @modelcontextprotocol/server-everything (npm), driven
// by a scripted model through the tool loop: echo, get-sum with its
// structured content, a tiny image summarised with its MIME type.
func TestEverythingServer(t *testing.T) {
	js := nodePackage(t, "@modelcontextprotocol/server-everything/dist/index.js")
	wf := workflow(fmt.Sprintf(`{command: [node, %q, stdio]}`, js), "[t.echo, t.get-sum, t.get-tiny-image]")
	res, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.echo, args: {message: hello}}, {tool: t.get-sum, args: {a: 2, b: 40}}, {tool: t.get-tiny-image, args: {}}]
  - tool_calls: [{tool: t.get-sum, args: {a: two}}]
  - "42"
`)
	require.NoError(t, err)
	assert.Equal(t, "42", res.Text())
	rs := results(evs)
	require.Len(t, rs, 4)
	assert.Contains(t, rs[0].Response, "hello")
	assert.Contains(t, rs[1].Response, "42")
	assert.Contains(t, rs[2].Response, "[image: image/png, ")
	assert.Contains(t, rs[3].Error, "do not match the tool's input schema")
}

// The reference server @modelcontextprotocol/server-filesystem (npm): a
// write and a read inside the allowed root, and a read outside it refused
// (the model is told; the run goes on).
func TestFilesystemServer(t *testing.T) {
	js := nodePackage(t, "@modelcontextprotocol/server-filesystem/dist/index.js")
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("do not read"), 0o600))
	inside := filepath.Join(root, "note.txt")
	wf := workflow(fmt.Sprintf(`{command: [node, %q, %q]}`, js, root), "[t.read_text_file, t.write_file]")
	_, evs, err := run(t, wf, fmt.Sprintf(`
asker:
  - tool_calls: [{tool: t.write_file, args: {path: %q, content: "written by a model"}}]
  - tool_calls: [{tool: t.read_text_file, args: {path: %q}}, {tool: t.read_text_file, args: {path: %q}}]
  - "done"
`, inside, inside, outside))
	require.NoError(t, err)
	b, err := os.ReadFile(inside)
	require.NoError(t, err)
	assert.Equal(t, "written by a model", string(b))
	rs := results(evs)
	require.Len(t, rs, 3)
	assert.Empty(t, rs[0].Error)
	assert.Equal(t, "written by a model", rs[1].Response)
	assert.Contains(t, rs[2].Error, "t.read_text_file: ")
	assert.Contains(t, rs[2].Error, "outside allowed directories")
	assert.NotContains(t, rs[2].Error+rs[2].Response, "do not read")
}
