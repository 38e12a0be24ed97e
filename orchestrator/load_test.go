package orchestrator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, src string) (*Workflow, []load.Problem, error) {
	t.Helper()
	return Parse([]byte(src), "wf.yaml", agenttest.Registry())
}

func TestLoadErrorsCarryPositions(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings, each must appear
	}{
		{"malformed yaml", "orchestrator: {id: x\nagents: [", []string{"wf.yaml:", "invalid YAML"}},
		{"empty file", "", []string{"wf.yaml", "empty"}},
		{"not a mapping", "- a\n- b\n", []string{"wf.yaml:1:1", "must be a mapping"}},
		{"missing orchestrator", "agents:\n  - {id: a, type: echo}\n", []string{"wf.yaml:1:1", "missing the orchestrator block"}},
		{"unknown type", "orchestrator: {id: w, agents: [a]}\nagents:\n  - id: a\n    type: nope\n", []string{"wf.yaml:4:11", `unknown type "nope"`, "known types:"}},
		{"duplicate id", "orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: echo}\n  - {id: a, type: echo}\n", []string{"wf.yaml:4:10", `"a" is defined twice`, "wf.yaml:3:10"}},
		{"undefined queue entry", "orchestrator:\n  id: w\n  agents: [a, ghost]\nagents:\n  - {id: a, type: echo}\n", []string{"wf.yaml:3:15", `"ghost"`}},
		{"unknown key", "orchestrator: {id: w, agents: [a]}\nagents:\n  - id: a\n    type: const\n    respons: hi\n", []string{"wf.yaml:5:5", `unknown key "respons"`, `did you mean "response"`}},
		{"unknown top-level key", "orchestrator: {id: w, agents: [a]}\nagentz: []\nagents:\n  - {id: a, type: echo}\n", []string{"wf.yaml:2:1", `unknown key "agentz"`}},
		{"wrong type for key", "orchestrator: {id: w, agents: [a]}\nagents:\n  - id: a\n    type: fail\n    message: [1, 2]\n", []string{"wf.yaml:5:5", "message must be text"}},
		{"missing id", "orchestrator: {id: w, agents: [a]}\nagents:\n  - {type: echo}\n", []string{"wf.yaml:3:5", "missing id"}},
		{"missing type", "orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a}\n", []string{"wf.yaml:3:5", "missing type"}},
		{"agents not a list", "orchestrator: {id: w, agents: [a]}\nagents: {a: 1}\n", []string{"wf.yaml:2:9", "agents must be a list"}},
		{"depends_on cycle", "orchestrator: {id: w, agents: [a, b]}\nagents:\n  - {id: a, type: echo, depends_on: [b]}\n  - {id: b, type: echo, depends_on: [a]}\n", []string{"wf.yaml:1:31", "cycle among a, b"}},
		{"two documents", "orchestrator: {id: w, agents: [a]}\nagents: [{id: a, type: echo}]\n---\nx: 1\n", []string{"wf.yaml:3:1", "one YAML document"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parse(t, tc.src)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

func TestLoadCollectsAllProblems(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a, b, c]}
agents:
  - {id: a, type: nope}
  - {id: b, type: const, extra: 1}
  - {id: c, type: fail, message: [x]}
`
	_, _, err := parse(t, src)
	require.Error(t, err)
	var le *load.Error
	require.ErrorAs(t, err, &le)
	assert.Len(t, le.Problems, 3, err.Error())
	assert.Contains(t, err.Error(), "3 problems")
}

func TestIgnoredOrKaKeysWarn(t *testing.T) {
	src := "orchestrator: {id: w, strategy: sequential, agents: [a], queue: 'orka:x'}\nagents:\n  - {id: a, type: echo, prompt: hi}\n"
	w, warns, err := parse(t, src)
	require.NoError(t, err)
	require.NotNil(t, w)
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Error(), "wf.yaml:1:58")
	assert.Contains(t, warns[0].Error(), "queue is accepted for OrKa compatibility and ignored")
}

func TestYAMLBombRejected(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 12; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("orchestrator: {id: w, agents: [a]}\nagents: [{id: a, type: echo}]\n")
	_, _, err := parse(t, b.String())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "aliases expand to more than")
}

func TestOrdinaryAnchorsWork(t *testing.T) {
	src := `defaults: &llm
  type: const
  response: shared
orchestrator: {id: w, agents: [a, b]}
agents:
  - <<: *llm
    id: a
  - <<: *llm
    id: b
    response: own
`
	// defaults is not a workflow key: it must be reported, everything else works.
	_, _, err := parse(t, src)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown key "defaults"`)
	var le *load.Error
	require.ErrorAs(t, err, &le)
	assert.Equal(t, 1, len(le.Problems), err.Error())
}

func TestFileSizeCap(t *testing.T) {
	_, _, err := Parse([]byte(strings.Repeat("#", 100)), "big.yaml", agenttest.Registry(), WithLimits(Limits{MaxBytes: 50, MaxNodes: 10}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 50 bytes")
}

func TestDependsOnReordersStably(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a, b, c, d]}
agents:
  - {id: a, type: echo, depends_on: [c]}
  - {id: b, type: echo}
  - {id: c, type: echo}
  - {id: d, type: echo}
`
	w, _, err := parse(t, src)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "c", "a", "d"}, w.Queue())
}

func TestStrictTurnsWarningsIntoErrors(t *testing.T) {
	src := "orchestrator: {id: w, agents: [a], queue: 'orka:x'%s}\nagents:\n  - {id: a, type: echo, prompt: hi}\n"
	t.Run("strict: true", func(t *testing.T) {
		_, warns, err := parse(t, fmt.Sprintf(src, ", strict: true"))
		require.Error(t, err)
		assert.Empty(t, warns)
		assert.Contains(t, err.Error(), "wf.yaml:1:")
		assert.Contains(t, err.Error(), "queue is accepted for OrKa compatibility and ignored (an error under strict mode)")
	})
	t.Run("WithStrict", func(t *testing.T) {
		_, _, err := Parse([]byte(fmt.Sprintf(src, "")), "wf.yaml", agenttest.Registry(), WithStrict())
		require.Error(t, err)
		assert.True(t, load.IsError(err))
	})
	t.Run("plain", func(t *testing.T) {
		w, warns, err := parse(t, fmt.Sprintf(src, ""))
		require.NoError(t, err)
		assert.False(t, w.Strict)
		assert.Len(t, warns, 1)
	})
	t.Run("clean strict file runs strict", func(t *testing.T) {
		w, _, err := parse(t, "orchestrator: {id: w, agents: [a], strict: true}\nagents:\n  - {id: a, type: echo, prompt: hi}\n")
		require.NoError(t, err)
		assert.True(t, w.Strict)
	})
}
