package act_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteThenReadFile(t *testing.T) {
	root := t.TempDir()
	w := build(t, fmt.Sprintf("type: write_file\nroot: %s\n", yamlQuote(root)))
	r := build(t, fmt.Sprintf("type: read_file\nroot: %s\n", yamlQuote(root)))
	out, err := call(t, w, map[string]any{"path": "pkg/sub/add.go", "content": "package sub\n"})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"path": "pkg/sub/add.go", "bytes": 12}, out.Fields)
	data, err := os.ReadFile(filepath.Join(root, "pkg", "sub", "add.go"))
	require.NoError(t, err, "parents are created inside the root")
	require.Equal(t, "package sub\n", string(data))

	out, err = call(t, r, map[string]any{"path": "./pkg/../pkg/sub/add.go"})
	require.NoError(t, err)
	require.Equal(t, "package sub\n", out.Response)
	require.Equal(t, 12, out.Fields["bytes"])
}

func TestFilePathTemplates(t *testing.T) {
	root := t.TempDir()
	w := build(t, fmt.Sprintf("type: write_file\nroot: %s\npath: 'out/{{ args.name }}.txt'\ncontent: 'hello {{ args.name }}'\n", yamlQuote(root)))
	_, err := call(t, w, map[string]any{"name": "bob"})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(root, "out", "bob.txt"))
	require.NoError(t, err)
	require.Equal(t, "hello bob", string(data))
}

func TestFilePathsEscapingTheRootAreRefused(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "file-link")))
	r := build(t, fmt.Sprintf("type: read_file\nroot: %s\n", yamlQuote(root)))
	w := build(t, fmt.Sprintf("type: write_file\nroot: %s\n", yamlQuote(root)))

	for _, tc := range []struct{ path, want string }{
		{"../outside/secret.txt", "leaves the root"},
		{"a/../../outside/secret.txt", "leaves the root"},
		{"link/secret.txt", "leaves the root"},
		{"file-link", "leaves the root"},
		{filepath.Join(outside, "secret.txt"), "is absolute"},
		{"", "the path is empty"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			_, err := call(t, r, map[string]any{"path": tc.path})
			require.ErrorContains(t, err, tc.want)
			_, err = call(t, w, map[string]any{"path": tc.path, "content": "pwned"})
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := call(t, w, map[string]any{"path": "link/new/deep.txt", "content": "pwned"})
	require.ErrorContains(t, err, "leaves the root")
	data, err := os.ReadFile(filepath.Join(outside, "secret.txt"))
	require.NoError(t, err)
	require.Equal(t, "secret", string(data), "nothing outside the root was written")
	_, err = os.Stat(filepath.Join(outside, "new"))
	require.True(t, os.IsNotExist(err), "no directory was made outside the root")
}

func TestFileSizeCaps(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("x", 101)), 0o644))
	r := build(t, fmt.Sprintf("type: read_file\nroot: %s\nmax_bytes: 100\n", yamlQuote(root)))
	w := build(t, fmt.Sprintf("type: write_file\nroot: %s\nmax_bytes: 100\n", yamlQuote(root)))
	_, err := call(t, r, map[string]any{"path": "big.txt"})
	require.ErrorContains(t, err, `file "big.txt" is larger than max_bytes (100 bytes)`)
	_, err = call(t, w, map[string]any{"path": "new.txt", "content": strings.Repeat("y", 101)})
	require.ErrorContains(t, err, "more than max_bytes (100)")
	_, err = os.Stat(filepath.Join(root, "new.txt"))
	require.True(t, os.IsNotExist(err))
}

func TestFileMissingArgumentsAndRoot(t *testing.T) {
	root := t.TempDir()
	w := build(t, fmt.Sprintf("type: write_file\nroot: %s\n", yamlQuote(root)))
	_, err := call(t, w, map[string]any{"path": "a.txt"})
	require.ErrorContains(t, err, "no content: give the argument content (args.content)")
	r := build(t, fmt.Sprintf("type: read_file\nroot: %s\n", yamlQuote(filepath.Join(root, "missing"))))
	_, err = call(t, r, map[string]any{"path": "a.txt"})
	require.ErrorContains(t, err, "open root")
	require.Contains(t, loadErr(t, "type: read_file\n"), `wf.yaml:1:1: agent "x": root is required`)
	require.Contains(t, loadErr(t, "type: write_file\nroot: .\nmax_bytes: 0\n"), "max_bytes must be between 1")
}
