package loopnode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMaxLoopsNoteAndStrict(t *testing.T) {
	wf, err := cogloop.Parse([]byte(controlsHead+controlsInner), "wf.yaml")
	require.NoError(t, err, "plain mode: only a note")
	require.Len(t, wf.Notes, 2)
	assert.Contains(t, wf.Notes[0].Error(), "wf.yaml:3:5: agent \"l\": no max_loops")
	assert.Contains(t, wf.Notes[1].Error(), "no score pattern", "issue 32 item 22: the loop's only early exit is OrKa's default patterns")
	assert.Empty(t, wf.Warnings, "a note is not a warning: OrKa files without max_loops run as before")

	_, err = cogloop.Parse([]byte(controlsHead+controlsInner), "wf.yaml", cogloop.WithStrict())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wf.yaml:3:5: agent \"l\": no max_loops")
	assert.Contains(t, err.Error(), "an error under strict mode")

	wf, err = cogloop.Parse([]byte(controlsHead+"    max_iterations: 3\n    score_threshold: 0.8\n"+controlsInner), "wf.yaml", cogloop.WithStrict())
	require.NoError(t, err)
	assert.Empty(t, wf.Notes)
}

// writeFiles writes name → content under a temporary directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

const refMain = "orchestrator: {id: m, agents: [l]}\nagents:\n  - id: l\n    type: loop\n    max_loops: 2\n    workflow_ref: %s\n"

func TestWorkflowRefLoadErrors(t *testing.T) {
	t.Run("positions name the inner file", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{
			"main.yaml":      sprintf(refMain, "sub/inner.yaml"),
			"sub/inner.yaml": "orchestrator: {id: i, agents: [a]}\nagents:\n  - id: a\n    type: scripted\n    responses: [x]\n    promt: hi\n",
		})
		_, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, "sub", "inner.yaml")+":6:5:")
		assert.Contains(t, err.Error(), `unknown key "promt"`)
	})
	t.Run("cycle", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{
			"main.yaml": sprintf(refMain, "a.yaml"),
			"a.yaml":    "orchestrator: {id: a, agents: [l2]}\nagents:\n  - id: l2\n    type: loop\n    max_loops: 2\n    workflow_ref: main.yaml\n",
		})
		_, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, "a.yaml")+":6:19:")
		assert.Contains(t, err.Error(), "reference cycle (main.yaml → a.yaml → main.yaml)")
	})
	t.Run("self reference", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"main.yaml": sprintf(refMain, "./main.yaml")})
		_, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "reference cycle (main.yaml → main.yaml)")
	})
	t.Run("missing file", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"main.yaml": sprintf(refMain, "nowhere.yaml")})
		_, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, "main.yaml")+":6:19:")
		assert.Contains(t, err.Error(), "the path is relative to "+dir)
	})
	t.Run("outside the directory tree is allowed when it exists", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{
			"wf/main.yaml":      sprintf(refMain, "../shared/inner.yaml"),
			"shared/inner.yaml": "orchestrator: {id: i, agents: [a]}\nagents:\n  - {id: a, type: scripted, responses: {cycle: [\"SCORE: 1\"]}}\n",
		})
		wf, err := cogloop.Load(filepath.Join(dir, "wf", "main.yaml"))
		require.NoError(t, err)
		res, err := wf.Run(t.Context(), "x")
		require.NoError(t, err)
		assert.Equal(t, "SCORE: 1", res.Text())
	})
	t.Run("invalid YAML in the inner file", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"main.yaml": sprintf(refMain, "bad.yaml"), "bad.yaml": "agents: [\n"})
		_, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, "bad.yaml")+":")
		assert.Contains(t, err.Error(), "referenced from "+filepath.Join(dir, "main.yaml")+":6:19")
	})
}

func TestWorkflowRefDigestCoversTheInnerFile(t *testing.T) {
	inner := "orchestrator: {id: i, agents: [a]}\nagents:\n  - {id: a, type: scripted, responses: [x]}\n"
	dir := writeFiles(t, map[string]string{"main.yaml": sprintf(refMain, "inner.yaml"), "inner.yaml": inner})
	load := func() string {
		wf, err := cogloop.Load(filepath.Join(dir, "main.yaml"))
		require.NoError(t, err)
		return wf.Digest
	}
	before := load()
	assert.Equal(t, before, load(), "the same files give the same digest")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inner.yaml"), []byte(inner+"# changed\n"), 0o644))
	assert.NotEqual(t, before, load(), "a change in the referenced file changes the digest")

	plain, err := cogloop.Parse([]byte(controlsHead+controlsInner), "wf.yaml")
	require.NoError(t, err)
	assert.Len(t, plain.Digest, 64)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
