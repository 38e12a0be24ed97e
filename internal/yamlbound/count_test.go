package yamlbound

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// nodes counts the nodes yaml.v3 builds (aliases not expanded, the document
// node not counted).
func nodes(t *testing.T, data []byte) int {
	t.Helper()
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(data, &doc))
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		c := 1
		for _, k := range n.Content {
			c += walk(k)
		}
		return c
	}
	if doc.Kind == 0 {
		return 0
	}
	return walk(&doc) - 1
}

func TestCountMatchesYAMLv3(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"flat list", "- a\n- b\n- c\n"},
		{"mapping", "a: 1\nb: two\nc: 'three'\n"},
		{"nested", "orchestrator:\n  id: w\n  agents: [a, b]\nagents:\n  - id: a\n    type: echo\n    prompt: hi\n"},
		{"block scalar", "p: |\n  - not: a list\n  - [x, y]\n\n  still text\nq: >-\n  folded\n"},
		{"quoted across lines", "a: \"one\n  two: three\"\nb: 'it''s'\n"},
		{"flow mapping", "a: {b: 1, c: [d, e], f: {g: h}}\n"},
		{"comments", "# a: b\na: 1 # b: c\n- x\n"[:len("# a: b\na: 1 # b: c\n")]},
		{"anchors and aliases", "a: &x [1, 2]\nb: *x\nc: !!str 3\n"},
		{"items of mappings", "- id: a\n  type: b\n- id: c\n  nested:\n    - 1\n    - 2\n"},
		{"document marker", "---\na: 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := Count([]byte(tc.src), 1<<30)
			assert.Equal(t, nodes(t, []byte(tc.src)), got)
		})
	}
}

// Over every YAML file of this repository the estimate stays close to
// yaml.v3's count: never below 90 % of it (so the memory bound holds) and not
// above 130 % (so no real file is refused early).
func TestCountIsCloseOnRealFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	var files int
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || doc.Kind == 0 {
			return nil // deliberately broken test inputs
		}
		files++
		want := nodes(t, data)
		got, _ := Count(data, 1<<30)
		assert.GreaterOrEqual(t, float64(got), 0.9*float64(want), path)
		assert.LessOrEqual(t, float64(got), 1.3*float64(want)+2, path)
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, files, 20)
}

func TestCheckNamesWhatIsTooLarge(t *testing.T) {
	data := []byte(strings.Repeat("- a\n", 300))
	err := Check(data, 100)
	require.Error(t, err)
	assert.Equal(t, "more than 100 YAML nodes by line 101 (a 1.2 KiB input); split it into smaller files", err.Error())
	assert.NoError(t, Check(data, 301))
	assert.Equal(t, "200,000", thousands(200000))
}
