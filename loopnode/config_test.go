package loopnode_test

import (
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOrKaIgnoredLoopKeysWarn(t *testing.T) {
	src := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    fallback_score: 0.2
    timeout_score: 0.1
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents: [{id: a, type: scripted, responses: [x]}]
`
	wf, err := cogloop.Parse([]byte(src), "wf.yaml")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 2)
	assert.Contains(t, wf.Warnings[0].Error(), "wf.yaml:5:5")
	assert.Contains(t, wf.Warnings[0].Error(), "fallback_score is accepted for OrKa compatibility and ignored")
}
