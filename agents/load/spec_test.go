package load_test

import (
	"github.com/cogloop/cogloop/agents/load"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestRecordingConfigRecordsEveryRead(t *testing.T) {
	c, spec := load.NewRecording("agent", &load.Problems{})
	require.True(t, c.Recording())
	assert.True(t, c.Has("score_scale"), "every key is present while recording")
	assert.Equal(t, 3, c.Int("score_scale", 3, 1, 100), "reads return their default")
	n := c.Node("targets")
	require.NotNil(t, n)
	assert.Equal(t, yaml.MappingNode, n.Kind)
	m := c.Map("budget")
	require.NotNil(t, m, "a nested mapping records even when absent")
	m.Float("max_cost", 0, 0, 1e9)
	c.Ignore("queue")
	c.Strings("queue") // read for real later: no longer ignored
	c.IgnoreBecause("(no embedder)", "vector")
	c.Derived(nil).Bool("enabled", true)
	c.DoneLenient("(passed to the model)")

	names := []string{}
	for _, k := range spec.Keys {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"score_scale", "targets", "budget", "queue", "vector", "enabled"}, names)
	k := spec.Key("score_scale")
	assert.Equal(t, "int", k.Kind, "a typed read refines a presence test")
	assert.Equal(t, 3, k.Default)
	assert.Equal(t, 1.0, *k.Min)
	assert.Equal(t, 100.0, *k.Max)
	assert.Equal(t, "any", spec.Key("targets").Kind)
	assert.Equal(t, "float", spec.Key("budget").Map.Key("max_cost").Kind)
	assert.Equal(t, "strings", spec.Key("queue").Kind)
	assert.False(t, spec.Key("queue").Ignored)
	assert.True(t, spec.Key("vector").Ignored)
	assert.Equal(t, "(no embedder)", spec.Key("vector").Reason)
	assert.Equal(t, "bool", spec.Key("enabled").Kind, "a derived config records into the same spec")
	assert.True(t, spec.Open)
}

func TestReadingConfigIsNotRecording(t *testing.T) {
	var n yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("a: 1"), &n))
	c := load.NewConfig("f.yaml", &n, "agent", &load.Problems{})
	assert.False(t, c.Recording())
	assert.False(t, c.Has("b"))
	assert.Nil(t, c.Map("b"))
}
