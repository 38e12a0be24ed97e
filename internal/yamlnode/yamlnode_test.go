package yamlnode

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestResolveAndKindName(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("a: &x {k: v}\nb: *x\nc: ~\nd: [1]\ne: hi\n"), &doc))
	root := Resolve(&doc)
	require.Equal(t, yaml.MappingNode, root.Kind)
	got := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		got[root.Content[i].Value] = KindName(Resolve(root.Content[i+1]))
	}
	assert.Equal(t, map[string]string{"a": "a mapping", "b": "a mapping", "c": "null", "d": "a list", "e": `"hi"`}, got)
	assert.Equal(t, "nothing", KindName(nil))
	assert.Nil(t, Resolve(&yaml.Node{Kind: yaml.DocumentNode}))
}
