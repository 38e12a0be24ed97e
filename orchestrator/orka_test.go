package orchestrator

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/flow"
	"github.com/cogloop/cogloop/types/llm"
)

func orkaRegistry() *agents.Registry {
	r := agenttest.Registry()
	llm.Register(r)
	flow.Register(r)
	return r
}

// Keys OrKa accepts and never reads load with one warning each that names the
// key and its position; strict mode makes them errors; a key nobody knows
// stays an error.
func TestOrKaAcceptedKeys(t *testing.T) {
	src := `meta: {version: 1}
name: demo
description: a demo
llm: {model: gpt-4o}
test_inputs: [a]
orchestrator: {id: w, mode: streaming, agents: [a, f, j, fo]}
agents:
  - id: a
    type: local_llm
    provider: ollama
    model: llama3
    model_url: http://127.0.0.1:1
    prompt: hi
    capabilities: [reasoning]
    is_terminal: true
    memory_preset: semantic
    metadata: {role: x}
    parse_json: false
    config: {x: 1}
    custom_weights: {a: 1}
  - {id: f, type: fork, group: g, targets: [[b]]}
  - {id: b, type: echo, prompt: hi}
  - {id: j, type: join, group: f}
  - {id: fo, type: failover, input: "{{ input }}", children: [{id: c, type: echo, prompt: hi}]}
`
	w, warns, err := Parse([]byte(src), "wf.yaml", orkaRegistry())
	require.NoError(t, err)
	require.NotNil(t, w)
	var got []string
	for _, p := range warns {
		got = append(got, p.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"wf.yaml:1:1: workflow: meta is accepted for OrKa compatibility and ignored",
		"wf.yaml:2:1: workflow: name is accepted",
		"wf.yaml:3:1: workflow: description is accepted",
		"wf.yaml:4:1: workflow: llm is accepted",
		"wf.yaml:5:1: workflow: test_inputs is accepted",
		"wf.yaml:6:23: workflow: orchestrator: mode is accepted for OrKa compatibility and ignored: it has no effect (cogloop runs the agents list in order",
		`wf.yaml:16:5: agent "a": memory_preset is accepted`,
		`wf.yaml:17:5: agent "a": metadata is accepted`,
		`wf.yaml:18:5: agent "a": parse_json is accepted`,
		`wf.yaml:19:5: agent "a": config is accepted`,
		`wf.yaml:20:5: agent "a": custom_weights is accepted`,
		`wf.yaml:21:25: agent "f": group is accepted`,
		`wf.yaml:24:30: agent "fo": input is accepted`,
	} {
		assert.Contains(t, all, want)
	}
	// capabilities and is_terminal are graph-scout hints, read on every agent.
	assert.NotContains(t, all, "capabilities")
	assert.NotContains(t, all, "is_terminal")
	assert.Len(t, got, 13, all)

	_, _, err = Parse([]byte(src), "wf.yaml", orkaRegistry(), WithStrict())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "13 problems")
	assert.Contains(t, err.Error(), "wf.yaml:1:1: workflow: meta is accepted for OrKa compatibility and ignored (an error under strict mode)")

	_, _, err = Parse([]byte(strings.Replace(src, "is_terminal", "is_termnal", 1)), "wf.yaml", orkaRegistry())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `wf.yaml:15:5: agent "a": unknown key "is_termnal" (did you mean "is_terminal"?)`)
}

// timeout: on a flow agent bounds its run, children included.
func TestFlowAgentTimeout(t *testing.T) {
	src := `orchestrator: {id: w, agents: [f, after]}
agents:
  - {id: f, type: fork, timeout: 1ms, targets: [[slow]]}
  - {id: slow, type: block}
  - {id: after, type: const, response: done}
`
	w, warns, err := Parse([]byte(src), "wf.yaml", orkaRegistry())
	require.NoError(t, err)
	assert.Empty(t, warns)
	out, err := w.Run(context.Background(), agents.Input{Value: "x"})
	require.NoError(t, err)
	f, ok := out.Children.Get("f")
	require.True(t, ok)
	require.True(t, f.Failed())
	assert.Contains(t, f.Err, `agent "f" did not finish within its timeout: 1ms (raise timeout: to give it longer)`)
	assert.Equal(t, "done", out.Response)

	// The wrapper unwraps to the deadline, and a join still finds its fork.
	a := &timed{agent: agents.Func(func(ctx context.Context, _ agents.Input) (agents.Output, error) {
		<-ctx.Done()
		return agents.Output{}, ctx.Err()
	}), id: "x", timeout: 1}
	_, err = a.Run(context.Background(), agents.Input{})
	assert.True(t, errors.Is(err, context.DeadlineExceeded))

	_, _, err = Parse([]byte(strings.Replace(src, "timeout: 1ms", "timeout: 25h", 1)), "wf.yaml", orkaRegistry())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `wf.yaml:3:25: agent "f": timeout must be at most 24h`)
}

// The graph-scout hints are checked like any key: a bad value is an error
// with its position.
func TestGraphScoutHintsChecked(t *testing.T) {
	src := `orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: echo, prompt: hi, is_terminal: maybe, capabilities: {x: 1}}
`
	_, _, err := Parse([]byte(src), "wf.yaml", orkaRegistry())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `wf.yaml:3:`)
	assert.Contains(t, err.Error(), `is_terminal must be true or false, not "maybe"`)
	assert.Contains(t, err.Error(), `capabilities must be a list of text, not a mapping`)
}
