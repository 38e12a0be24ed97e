package cogloop_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMELayoutListsEveryPackage: the README's layout section names every
// package directory of the module.
func TestREADMELayoutListsEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, layout, ok := strings.Cut(string(readme), "## Layout\n")
	require.True(t, ok, "README.md has a Layout section")
	listed := map[string]bool{}
	for _, line := range strings.Split(layout, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			listed[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	n := 0
	for dir := range sourceFiles(t) {
		if dir == "." || strings.HasSuffix(dir, "/redistest") { // redistest is described with memory/redis
			continue
		}
		n++
		assert.True(t, listed[dir], "README.md's layout names %s/", dir)
	}
	assert.Greater(t, n, 20)
}

// sourceFiles lists the module's non-test Go files by package directory
// (slash-separated, "." for the root), leaving out testdata and hidden
// directories.
func sourceFiles(t *testing.T) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() && path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own (an example's project), not this module's
			}
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(path))
			files[dir] = append(files[dir], path)
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// The import direction (TestImportDirections, TestOnlyMCPImportsTheSDK) is
// checked for every package by TestLayering, from the declaration in
// layering_test.go.
