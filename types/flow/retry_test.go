package flow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRetriedForkIsStillAFork: retry: on a fork wraps it (retry.Wrap);
// joins, by group or by finding the nearest fork, still recognise it, and its
// branch agents are still exposed.
func TestRetriedForkIsStillAFork(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [f, j, k]}
agents:
  - {id: f, type: fork, targets: [a, b], retry: {count: 2, interval: 1ms}}
  - {id: a, type: echo, prompt: A}
  - {id: b, type: echo, prompt: B}
  - {id: j, type: join, group: f}
  - {id: k, type: join}
`)
	out, _, err := run(t, wf, "go")
	require.NoError(t, err)
	assert.Equal(t, []string{"f", "a", "b", "j", "k"}, out.Children.IDs())
	assert.Equal(t, "a: A\n\nb: B", get(t, out.Children, "j").Response)
	assert.Equal(t, "a: A\n\nb: B", get(t, out.Children, "k").Response, "the join without group found the retried fork")
}
