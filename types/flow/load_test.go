package flow_test

import (
	"testing"

	"github.com/cogloop/cogloop/orchestrator"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of the error, each must appear
	}{
		{"fork target undefined", `orchestrator: {id: w, agents: [f]}
agents:
  - {id: f, type: fork, targets: [[a, ghost], [b]]}
  - {id: a, type: echo}
  - {id: b, type: echo}
`, []string{`wf.yaml:3:39: agent "f": targets names "ghost", which no agent of this workflow defines`}},
		{"empty targets", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork, targets: []}\n", []string{`wf.yaml:3:25: agent "f": targets is empty`}},
		{"missing targets", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork}\n", []string{`wf.yaml:3:5: agent "f": missing targets`}},
		{"empty branch", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork, targets: [[a], []]}\n  - {id: a, type: echo}\n", []string{`wf.yaml:3:40: agent "f": branch 2 of targets is empty`}},
		{"target twice", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork, targets: [[a], [a]]}\n  - {id: a, type: echo}\n", []string{`wf.yaml:3:41: agent "f": targets names "a" twice (also in branch 1)`}},
		{"bad mode", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork, mode: async, targets: [a]}\n  - {id: a, type: echo}\n", []string{`wf.yaml:3:25: agent "f": mode must be parallel or sequential, not "async"`}},
		{"fork targets itself", "orchestrator: {id: w, agents: [f]}\nagents:\n  - {id: f, type: fork, targets: [f]}\n", []string{`wf.yaml:3:10`, `"f" refers to itself`}},
		{"join group is not a fork", `orchestrator: {id: w, agents: [a, j]}
agents:
  - {id: a, type: echo}
  - {id: j, type: join, group: a}
`, []string{`wf.yaml:4:25: agent "j": group "a" is an agent of type echo, not a fork`}},
		{"join group undefined", "orchestrator: {id: w, agents: [j]}\nagents:\n  - {id: j, type: join, group: nope}\n", []string{`wf.yaml:3:32: agent "j": group names "nope", which no agent of this workflow defines`}},
		{"join without any fork", "orchestrator: {id: w, agents: [j]}\nagents:\n  - {id: j, type: join}\n", []string{`wf.yaml:3:5: agent "j": no group and no fork is defined before this join`}},
		{"router route undefined", `orchestrator: {id: w, agents: [d, r]}
agents:
  - {id: d, type: echo}
  - id: r
    type: router
    params:
      decision_key: d
      routing_map: {"true": [a, ghost], "false": nope}
      fallback_route: [gone]
  - {id: a, type: echo}
`, []string{
			`wf.yaml:8:33: agent "r": params: routing_map names "ghost", which no agent of this workflow defines`,
			`wf.yaml:8:50: agent "r": params: routing_map names "nope"`,
			`wf.yaml:9:24: agent "r": params: fallback_route names "gone"`,
		}},
		{"router decision_key undefined", `orchestrator: {id: w, agents: [r]}
agents:
  - id: r
    type: router
    params: {decision_key: who, routing_map: {x: [a]}}
  - {id: a, type: echo}
`, []string{`wf.yaml:5:14: agent "r": params: decision_key names "who"`}},
		{"router without params", "orchestrator: {id: w, agents: [r]}\nagents:\n  - {id: r, type: router}\n", []string{`wf.yaml:3:5: agent "r": missing params`}},
		{"router empty routing_map", "orchestrator: {id: w, agents: [d, r]}\nagents:\n  - {id: d, type: echo}\n  - {id: r, type: router, params: {decision_key: d, routing_map: {}}}\n", []string{`agent "r": params: routing_map is empty`}},
		{"router unknown param", "orchestrator: {id: w, agents: [d, r]}\nagents:\n  - {id: d, type: echo}\n  - {id: r, type: router, params: {decision_key: d, routing_map: {x: d}, fallback: [d]}}\n", []string{`unknown key "fallback"`}},
		{"failover without children", "orchestrator: {id: w, agents: [fo]}\nagents:\n  - {id: fo, type: failover}\n", []string{`wf.yaml:3:5: agent "fo": missing children`}},
		{"failover with empty children", "orchestrator: {id: w, agents: [fo]}\nagents:\n  - {id: fo, type: failover, children: []}\n", []string{`wf.yaml:3:30: agent "fo": children is empty`}},
		{"failover child without id", "orchestrator: {id: w, agents: [fo]}\nagents:\n  - id: fo\n    type: failover\n    children:\n      - {type: echo}\n", []string{`wf.yaml:6:9`, "missing id"}},
		{"failover child twice", "orchestrator: {id: w, agents: [fo]}\nagents:\n  - id: fo\n    type: failover\n    children:\n      - {id: c, type: echo}\n      - {id: c, type: echo}\n", []string{`wf.yaml:7:9: agent "fo": children define "c" twice`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{}
			_, _, err := orchestrator.Parse([]byte(tc.src), "wf.yaml", w.registry())
			require.Error(t, err)
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestLoadWarnings(t *testing.T) {
	w := &world{}
	_, warns := w.parse(t, `orchestrator:
  id: w
  agents: [f, a, j, d, r, y]
agents:
  - {id: f, type: fork, targets: [[a], [b]]}
  - {id: a, type: echo}
  - {id: b, type: echo}
  - {id: j, type: join, max_retries: 30}
  - {id: d, type: echo}
  - {id: r, type: router, params: {decision_key: d, routing_map: {"true": [y]}}}
  - {id: y, type: echo}
`)
	var got []string
	for _, p := range warns {
		got = append(got, p.Error())
	}
	assert.Contains(t, got, `wf.yaml:3:15: orchestrator: agents lists "a", which fork "f" also runs; it will run twice (remove it from this list unless that is what you want)`)
	assert.Contains(t, got, `wf.yaml:3:27: orchestrator: agents lists "y", which router "r" also runs; it will run twice (remove it from this list unless that is what you want)`)
	assert.Contains(t, got, `wf.yaml:8:5: agent "j": no group: joining fork "f", the nearest fork defined before this join (set group: f to say so)`)
	assert.Contains(t, got, `wf.yaml:8:25: agent "j": max_retries is accepted for OrKa compatibility and ignored`)
	assert.Len(t, got, 4)
}
