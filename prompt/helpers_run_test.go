package prompt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wants below are what OrKa's functions at 6037af3f return for the same
// data (orka/orchestrator/template_helpers.py get_execution_artifacts and
// to_json_string; prompt_rendering/memory_helpers.py for the others).

func TestGetExecutionArtifacts(t *testing.T) {
	// OrKa's shapes: a fork's response {status: forked, ...}, a router's
	// response naming the agent it chose
	d := Data{
		Previous: map[string]any{
			"reader": map[string]any{"response": "x"},
			"fork1":  map[string]any{"response": map[string]any{"status": "forked", "fork_group": "g1", "agents": []any{"a", "b"}}},
			"a":      map[string]any{"response": "ra"},
			"b":      map[string]any{"response": "rb"},
			"router": map[string]any{"response": "b"},
			"plain":  "text",
		},
		PreviousOrder: []string{"reader", "fork1", "a", "b", "router", "plain"},
	}
	want := `{"nodes_executed": ["reader", "fork1", "a", "b", "router", "plain"], "fork_groups": {"fork1": {"has_join": true, "branches": ["a", "b"], "completed_branches": ["a", "b"], "fork_group_id": "g1"}}, "router_decisions": {"router": {"chosen_target": "b", "target_nodes_executed": ["b"]}}, "graph_structure": {"nodes": {"reader": {}, "fork1": {}, "a": {}, "b": {}, "router": {}, "plain": {}}, "edges": [{"src": "reader", "dst": "fork1"}, {"src": "fork1", "dst": "a"}, {"src": "a", "dst": "b"}, {"src": "b", "dst": "router"}, {"src": "router", "dst": "plain"}]}, "tool_calls": [], "structured_outputs": {}}`
	assert.Equal(t, want, render(t, `{{ get_execution_artifacts(previous_outputs) | to_json_string }}`, d))
	// without an argument: the render's previous_outputs (OrKa's gives the empty shape)
	assert.Equal(t, want, render(t, `{{ get_execution_artifacts() | to_json_string }}`, d))
	empty := `{"nodes_executed": [], "fork_groups": {}, "router_decisions": {}, "graph_structure": {"nodes": {}, "edges": []}, "tool_calls": [], "structured_outputs": {}}`
	assert.Equal(t, empty, render(t, `{{ get_execution_artifacts({}) | to_json_string }}`, d))
	assert.Equal(t, empty, render(t, `{{ get_execution_artifacts() | to_json_string }}`, Data{}))

	// cogloop's shapes: the fork's output holds status forked next to its
	// response; the router's response is the list of chosen agents
	ours := Data{
		Previous: map[string]any{
			"fork1": map[string]any{"response": []any{"a"}, "status": "forked", "fork_group": "fork1", "agents": []any{"a"}, "mode": "parallel"},
			"a":     map[string]any{"response": "ra"},
			"route": map[string]any{"response": []any{"a", "later"}, "decision_key": "a", "route": "yes"},
		},
		PreviousOrder: []string{"fork1", "a", "route"},
	}
	art, err := mustParse(t, `{{ get_execution_artifacts(previous_outputs) }}`).Eval(ours)
	require.NoError(t, err)
	m := art.(map[string]any)
	assert.Equal(t, []any{"fork1", "a", "route"}, m["nodes_executed"])
	assert.Equal(t, map[string]any{"fork1": map[string]any{"has_join": true, "branches": []any{"a"}, "completed_branches": []any{"a"}, "fork_group_id": "fork1"}}, m["fork_groups"])
	assert.Equal(t, map[string]any{"route": map[string]any{"chosen_target": "a", "target_nodes_executed": []any{"a"}}}, m["router_decisions"])
}

func mustParse(t *testing.T, src string) *Template {
	t.Helper()
	tp, err := Parse("test", src, Options{})
	require.NoError(t, err)
	return tp
}

func memoryData() Data {
	return Data{
		Input: map[string]any{"input": "the topic"},
		Previous: map[string]any{"past_loops": []any{
			map[string]any{"round": 1, "agreement_score": "0.4", "radical_progressive": "pos1"},
			map[string]any{"round": 2, "score": 0.6},
			map[string]any{"round": 3, "agreement_score": 0.8, "radical_progressive": "pos3"},
			map[string]any{"radical_progressive": "pos4"},
		}},
		Vars: map[string]any{"memories": []any{
			map[string]any{"content": "m1", "metadata": map[string]any{"agent_type": "radical_progressive"}},
			map[string]any{"content": "m2", "metadata": map[string]any{"agent_type": "other"}},
			map[string]any{"content": "m3", "metadata": map[string]any{"agent_type": "radical_progressive"}},
			map[string]any{"content": "m4", "metadata": map[string]any{"agent_type": "radical_progressive"}},
			map[string]any{"content": "m5", "metadata": map[string]any{"agent_type": "radical_progressive"}},
			"junk",
		}},
	}
}

func TestMemoryAndDebateHelpers(t *testing.T) {
	d := memoryData()
	first := Data{Input: "plain"}
	tests := []struct {
		name, src string
		d         Data
		want      string
	}{
		{"debate evolution", `{{ get_debate_evolution() }}`, d,
			"Round 1: Agreement 0.4 -> Round 2: Agreement Unknown -> Round 3: Agreement 0.8 -> Round 4: Agreement Unknown"},
		{"debate evolution, first round", `{{ get_debate_evolution() }}`, first, "First round of debate"},
		{"debate evolution of given loops", `{{ get_debate_evolution([{'agreement_score': 1}]) }}`, first, "Round 1: Agreement 1"},
		{"memory context", `{{ get_agent_memory_context('radical_progressive', 'radical_progressive') }}`, d,
			"PAST MEMORY:\nm3\nm4\nm5\n\nPAST DECISIONS:\nLoop 3: pos3\nLoop ?: pos4"},
		{"memory context of a stranger", `{{ get_agent_memory_context('nobody', 'nobody') }}`, d,
			"PAST MEMORY:\nNo past memory for this agent type"},
		{"memory context, first round", `{{ get_agent_memory_context('radical_progressive', 'radical_progressive') }}`, first,
			"PAST DECISIONS:\nNo past decisions available"},
		{"past memory", `{{ get_my_past_memory('other') }}`, d, "m2"},
		{"past memory, none", `{{ get_my_past_memory('other') }}`, first, "No past memory available"},
		{"past decisions", `{{ get_my_past_decisions('radical_progressive') }}`, d, "Loop 3: pos3\nLoop ?: pos4"},
		{"memory query", `{{ format_memory_query('radical_progressive') }}`, d, "Radical_Progressive perspective on: the topic"},
		{"memory query with topic", `{{ format_memory_query('ethical purist', 'AI') }}`, d, "Ethical Purist perspective on: AI"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, tc.d))
		})
	}
}

// Without a memories variable, the memories are those memory readers returned
// earlier in the run (cogloop's memory agent puts them in its output).
func TestMemoriesFromReaders(t *testing.T) {
	d := Data{
		Previous: map[string]any{
			"shared_memory_reader": map[string]any{"response": "m1", "memories": []any{
				map[string]any{"content": "m1", "metadata": map[string]any{"agent_type": "purist"}},
			}},
			"other_reader": map[string]any{"response": "m2", "memories": []any{
				map[string]any{"content": "m2", "metadata": map[string]any{"agent_type": "purist"}},
			}},
		},
		PreviousOrder: []string{"other_reader", "shared_memory_reader"},
	}
	assert.Equal(t, "PAST MEMORY:\nm2\nm1\n\nPAST DECISIONS:\nNo past decisions available",
		render(t, `{{ get_agent_memory_context('purist', 'ethical_purist') }}`, d))
}

func TestRunHelperArgumentErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{{ get_agent_memory_context('a') }}`:                "get_agent_memory_context(): takes 2 arguments",
		`{{ get_my_past_memory() }}`:                         "get_my_past_memory(): missing argument 'agent_type'",
		`{{ format_memory_query() }}`:                        "format_memory_query(): missing argument 'perspective'",
		`{{ get_execution_artifacts(previous_outputs, 1) }}`: "get_execution_artifacts(): takes at most 1 arguments",
	} {
		err := renderErr(t, src, Data{}, Options{})
		assert.Contains(t, err.Error(), want, src)
	}
}
