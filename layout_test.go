package cogloop_test

import (
	"go/parser"
	"go/token"
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

// TestImportDirections: the packages split out of agents import only what
// their doc.go says, so imports keep pointing down (load, fault, secrets at
// the bottom; spend and event above them; agents above those; retry and
// scripted above agents).
func TestImportDirections(t *testing.T) {
	const mod = "github.com/cogloop/cogloop/"
	may := map[string][]string{ // package dir → the project packages it may import ("x/" = anything under x)
		"agents/load":     {"internal/"},
		"agents/fault":    nil,
		"agents/secrets":  nil,
		"agents/spend":    {"agents/load", "agents/fault", "configs"},
		"agents/event":    {"agents/spend"},
		"agents/lease":    {"agents/fault", "memory"},
		"agents":          {"agents/load", "agents/fault", "agents/lease", "agents/spend", "agents/event", "agents/secrets", "prompt", "memory", "scoring", "internal/"},
		"agents/retry":    {"agents", "agents/event", "agents/fault", "agents/load", "agents/secrets", "agents/spend"},
		"agents/scripted": {"agents", "agents/fault", "agents/load", "agents/retry", "agents/spend", "internal/"},
		"scoring":         {"agents/load", "cognition", "cognition/", "configs", "internal/"},
		"mcp":             {"agents", "agents/load", "agents/fault", "internal/"},
		"serve":           {"agents/event", "agents/human", "agents/spend", "records", "report", "queue"},
	}
	for dir, allowed := range may {
		t.Run(dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			for _, file := range files {
				if strings.HasSuffix(file, "_test.go") {
					continue
				}
				f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
				require.NoError(t, err)
				for _, im := range f.Imports {
					path, ok := strings.CutPrefix(strings.Trim(im.Path.Value, `"`), mod)
					if !ok {
						continue
					}
					ok = false
					for _, a := range allowed {
						ok = ok || path == a || strings.HasSuffix(a, "/") && strings.HasPrefix(path, a)
					}
					assert.True(t, ok, "%s imports %s; its doc.go allows only %v", file, path, allowed)
				}
			}
		})
	}
}

// TestOnlyMCPImportsTheSDK: the MCP go-sdk is imported by package mcp alone.
func TestOnlyMCPImportsTheSDK(t *testing.T) {
	for dir, files := range sourceFiles(t) {
		for _, file := range files {
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, im := range f.Imports {
				if strings.HasPrefix(strings.Trim(im.Path.Value, `"`), "github.com/modelcontextprotocol/go-sdk") {
					assert.Equal(t, "mcp", dir, "%s imports the MCP go-sdk; only package mcp may", file)
				}
			}
		}
	}
}
