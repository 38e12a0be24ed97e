package load_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents/load"
)

// A YAML syntax error is placed at the line yaml.v3 names; one without a
// line is at the file.
func TestYAMLProblem(t *testing.T) {
	var n yaml.Node
	err := yaml.Unmarshal([]byte("a: 1\nb: [\n"), &n)
	require.Error(t, err)
	p := load.YAMLProblem("f.yaml", err)
	assert.Equal(t, load.Pos{File: "f.yaml", Line: 2, Col: 1}, p.Pos)
	assert.NotContains(t, p.Msg, "yaml:")
	assert.NotContains(t, p.Msg, "line 2")

	p = load.YAMLProblem("f.yaml", yaml.Unmarshal([]byte("\t"), &n))
	assert.Equal(t, "f.yaml", p.Pos.String())
	assert.NotEmpty(t, p.Msg)
	assert.NotContains(t, p.Msg, "yaml:")
}

// A load error reads as its problems, one a line, under a header naming them.
func TestErrorNamesItsProblems(t *testing.T) {
	e := &load.Error{Problems: []load.Problem{{Pos: load.Pos{File: "a", Line: 1, Col: 2}, Msg: "x"}, {Msg: "y"}}}
	assert.Equal(t, "2 problems:\na:1:2: x\ny", e.Error())
	e.What = "problems in scoring presets"
	assert.Equal(t, "2 problems in scoring presets:\na:1:2: x\ny", e.Error())
}
