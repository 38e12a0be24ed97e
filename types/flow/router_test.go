package flow_test

import (
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRouterMatchingLadder(t *testing.T) {
	const boolMap = `{"true": [yes_agent], "false": [no_agent]}`
	const classMap = `{positive: [pos_agent], negative: [neg_agent, no_agent], neutral: []}`
	tests := []struct {
		name       string
		decision   string // the decision agent's definition after "id: decide, "
		routingMap string
		fallback   string
		wantRan    []string // agents run after the router, in order, before final
		wantMatch  string
	}{
		{"bool true", "type: const, response: true", boolMap, "", []string{"yes_agent"}, "exact"},
		{"bool false", "type: const, response: false", boolMap, "", []string{"no_agent"}, "exact"},
		{"text True folds", `type: const, response: " True "`, boolMap, "", []string{"yes_agent"}, "normalized"},
		{"yes is true", "type: const, response: 'Yes'", boolMap, "", []string{"yes_agent"}, "boolean"},
		{"0 is false", "type: const, response: 0", boolMap, "", []string{"no_agent"}, "boolean"},
		{"word in a sentence", "type: const, response: 'I think the answer is yes.'", boolMap, "", []string{"yes_agent"}, "text"},
		{"both words: no match, fallback", "type: const, response: 'yes and no'", boolMap, "[fb_agent]", []string{"fb_agent"}, "fallback"},
		{"yes key matches true", "type: const, response: true", `{"yes": [yes_agent], "no": [no_agent]}`, "", []string{"yes_agent"}, "boolean"},
		{"classification", "type: const, response: negative", classMap, "[fb_agent]", []string{"neg_agent", "no_agent"}, "exact"},
		{"classification folds", "type: const, response: ' Positive'", classMap, "", []string{"pos_agent"}, "normalized"},
		{"empty route runs nothing, no fallback", "type: const, response: neutral", classMap, "[fb_agent]", nil, "exact"},
		{"unknown class falls back", "type: const, response: mixed", classMap, "fb_agent", []string{"fb_agent"}, "fallback"},
		{"mapping response unwraps", "type: const, response: {response: positive}", classMap, "", []string{"pos_agent"}, "exact"},
		{"failed decision falls back", "type: fail", boolMap, "[fb_agent]", []string{"fb_agent"}, "fallback"},
		{"no match, no fallback", "type: const, response: maybe", boolMap, "", nil, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fb := ""
			if tc.fallback != "" {
				fb = "\n      fallback_route: " + tc.fallback
			}
			src := fmt.Sprintf(`orchestrator: {id: w, agents: [decide, r, final]}
agents:
  - {id: decide, %s}
  - id: r
    type: router
    params:
      decision_key: decide
      routing_map: %s%s
  - {id: yes_agent, type: const, response: Y}
  - {id: no_agent, type: const, response: N}
  - {id: pos_agent, type: const, response: P}
  - {id: neg_agent, type: const, response: M}
  - {id: fb_agent, type: const, response: F}
  - {id: final, type: echo, prompt: "final after {{ previous_outputs.r.response }}"}
`, tc.decision, tc.routingMap, fb)
			w := &world{}
			wf, _ := w.parse(t, src)
			out, rec, err := run(t, wf, "x")
			require.NoError(t, err)
			want := append(append([]string{"decide", "r"}, tc.wantRan...), "final")
			assert.Equal(t, want, out.Children.IDs())
			r := get(t, out.Children, "r")
			assert.Equal(t, tc.wantMatch, r.Fields["match"])
			ids := []any{}
			for _, id := range tc.wantRan {
				ids = append(ids, id)
			}
			assert.Equal(t, ids, r.Response, "the router answers with the chosen ids, as OrKa's does")
			warned := false
			for _, e := range rec.Events() {
				if e.Kind == event.Warning && e.Agent == "r" {
					warned = true
				}
			}
			assert.Equal(t, tc.wantMatch == "none", warned, "no route is reported")
		})
	}
}

func TestRouterInsideAForkBranchAndALoop(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 1
    internal_workflow:
      orchestrator: {id: inner, agents: [f, j]}
      agents:
        - {id: f, type: fork, targets: [[decide, r, tail], [other]]}
        - {id: decide, type: scripted, prompt: "round {{ get_loop_number() }}", responses: ["true", "false"]}
        - id: r
          type: router
          params: {decision_key: decide, routing_map: {"true": [yes_agent], "false": [no_agent]}}
        - {id: yes_agent, type: const, response: Y}
        - {id: no_agent, type: const, response: N}
        - {id: tail, type: echo, prompt: "tail after {{ previous_outputs.r.response }}"}
        - {id: other, type: const, response: O}
        - {id: j, type: join, group: f}
`)
	out, rec, err := run(t, wf, "x")
	require.NoError(t, err)
	loop := get(t, out.Children, "l")
	assert.Equal(t, []string{"f", "decide", "r", "no_agent", "tail", "other", "j"}, loop.Children.IDs(),
		"the route runs inside the branch, right after the router, in the second iteration too")
	var nodes []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentEnd && (e.Agent == "yes_agent" || e.Agent == "no_agent") {
			nodes = append(nodes, e.Node)
		}
	}
	assert.Equal(t, []string{"l › iteration 1 › f › yes_agent", "l › iteration 2 › f › no_agent"}, nodes)
}
