package prompt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loopData is what an agent inside loop iteration 2 sees: the iteration wrapper
// as input, the outputs of its siblings in previous_outputs.
func loopData() Data {
	past := []any{
		map[string]any{"loop_number": 1, "score": 0.4, "insights": "vague", "synthesis_insights": "first synthesis", "round": "R1"},
		map[string]any{"loop_number": 2, "score": 0.65, "insights": "better", "synthesis_insights": "second synthesis", "round": "R2", "agreement_score": 0.7},
	}
	meta := map[string]any{"insights": "better | vague", "improvements": "add examples"}
	return Data{
		Input: map[string]any{
			"input":               "the task",
			"previous_outputs":    map[string]any{"past_loops": past, "parent": map[string]any{"response": "parent answer"}},
			"loop_number":         2,
			"past_loops_metadata": meta,
		},
		Previous: map[string]any{
			"writer":   map[string]any{"response": "draft 2", "confidence": 0.8, "internal_reasoning": "r"},
			"reviewer": map[string]any{"response": map[string]any{"response": "nested review"}, "status": "success"},
			"broken":   map[string]any{"result": nil, "status": "error", "error": "timeout"},
			"empty":    map[string]any{"response": ""},
		},
		PreviousOrder:     []string{"writer", "reviewer", "broken", "empty"},
		LoopNumber:        2,
		PastLoopsMetadata: meta,
	}
}

// topData is what an agent after a loop sees: the loop's output in cogloop's
// shape (answer text in response, OrKa's dict fields next to it).
func topData() Data {
	past := []any{
		map[string]any{"loop_number": 1, "score": 0.5, "status": "completed"},
		map[string]any{"loop_number": 2, "score": 0.8, "status": "completed"},
		map[string]any{"loop_number": 3, "score": 0.92, "status": "completed"},
	}
	return Data{
		Input: "the task",
		Previous: map[string]any{
			"improve": map[string]any{
				"response":        "final answer",
				"loops_completed": 3,
				"final_score":     0.92,
				"threshold_met":   true,
				"past_loops":      past,
				"result":          map[string]any{"scorer": map[string]any{"response": "SCORE: 0.92"}},
				"input":           "the task",
				"confidence":      1.0,
			},
			"fork1": map[string]any{
				"result": map[string]any{
					"a": map[string]any{"response": "branch a"},
					"b": map[string]any{"response": "branch b"},
				},
				"status": "done",
			},
			"join1":        map[string]any{"joined_results": []any{"a", "b"}, "response": "joined"},
			"orka_logged":  map[string]any{"payload": map[string]any{"response": map[string]any{"response": "from payload"}}},
			"orka_wrapped": map[string]any{"response": map[string]any{"loops_completed": 2, "final_score": 0.5, "past_loops": []any{}}},
		},
		PreviousOrder: []string{"improve", "fork1", "join1", "orka_logged", "orka_wrapped"},
	}
}

func TestHelpers(t *testing.T) {
	tests := []struct {
		name, src string
		loop, top string
	}{
		{"get_input", "{{ get_input() }}", "the task", "the task"},
		{"get_current_topic", "{{ get_current_topic() }}", "the task", "the task"},
		{"get_input_field", "{{ get_input_field(input, 'loop_number') }}|{{ get_input_field(input, 'nope', 'dflt') }}", "2|dflt", "|dflt"},
		{"get_loop_number", "{{ get_loop_number() }}", "2", "1"},
		{"get_past_loops", "{% for p in get_past_loops() %}{{ p.score }};{% endfor %}", "0.4;0.65;", "0.5;0.8;0.92;"},
		{"get_past_loops length", "{{ get_past_loops()|length }}", "2", "3"},
		{"has_past_loops", "{{ has_past_loops() }}", "True", "True"},
		{"get_past_insights", "{{ get_past_insights() }}", "second synthesis", "No synthesis insights found"},
		{"get_past_loop_data key", "{{ get_past_loop_data('insights') }}|{{ get_past_loop_data('nope') }}", "better|No nope found", "No insights found|No nope found"},
		{"get_past_loop_data all", "{{ get_past_loop_data() }}", "{'agreement_score': 0.7, 'insights': 'better', 'loop_number': 2, 'round': 'R2', 'score': 0.65, 'synthesis_insights': 'second synthesis'}", "{'loop_number': 3, 'score': 0.92, 'status': 'completed'}"},
		{"get_past_loops_metadata", "{{ get_past_loops_metadata().improvements }}", "add examples", ""},
		{"get_round_info", "{{ get_round_info() }}", "R2", "1"},
		{"get_score_threshold", "{{ get_score_threshold() }}", "0.9", "0.9"},
		{"get_loop_rounds", "{{ get_loop_rounds() }}", "2", "3"},
		{"get_final_score", "{{ get_final_score() }}", "0.7", "0.92"},
		{"get_loop_status", "{{ get_loop_status() }}", "success", "done"},
		{"get_loop_output response", "{{ get_loop_output('improve').response }}", "", "final answer"},
		{"get_loop_output fields", "{{ get_loop_output('improve', previous_outputs).final_score }}|{{ get_loop_output('improve').past_loops|length }}", "|0", "0.92|3"},
		{"get_loop_output orka shape", "{{ get_loop_output('orka_wrapped').loops_completed }}", "", "2"},
		{"get_loop_output missing", "{{ get_loop_output('nope') }}", "{}", "{}"},
		{"get_agent_response", "{{ get_agent_response('writer') }}", "draft 2", "No response found for writer"},
		{"get_agent_response nested", "{{ get_agent_response('reviewer') }}", "nested review", "No response found for reviewer"},
		// OrKa's get_agent_response (agent_helpers.py) reads result before response:
		// a loop's is str() of its result dict.
		{"get_agent_response loop", "{{ get_agent_response('improve') }}", "No response found for improve", "{'scorer': {'response': 'SCORE: 0.92'}}"},
		{"get_agent_response payload", "{{ get_agent_response('orka_logged') }}", "No response found for orka_logged", "from payload"},
		{"get_agent_response error record", "[{{ get_agent_response('broken') }}]", "[]", "[No response found for broken]"},
		{"safe_get_response", "{{ safe_get_response('writer') }}|{{ safe_get_response('nope') }}|{{ safe_get_response('nope', 'fb') }}", "draft 2|No response available|fb", "No response available|No response available|fb"},
		{"safe_get_response empty and error", "{{ safe_get_response('empty', 'e') }}|{{ safe_get_response('broken', fallback='b') }}", "e|b", "e|b"},
		{"safe_get_response prev_outputs", "{{ safe_get_response('parent', 'none', input.previous_outputs) }}", "parent answer", "none"},
		{"get_fork_responses group", "{{ get_fork_responses('fork1') }}", "{}", "{'a': 'branch a', 'b': 'branch b'}"},
		{"get_fork_responses all", "{{ get_fork_responses()|length }}", "1", "3"},
		{"joined_results", "{{ joined_results() }}", "[]", "['a', 'b']"},
		{"safe_get", "{{ safe_get(get_loop_output('improve'), 'result', 'No final result')|length }}|{{ safe_get(input, 'nope', 'dflt') }}|{{ safe_get('str', 'k') }}", "15|dflt|", "1|dflt|"},
		{"safe_str", "[{{ safe_str(none) }}|{{ safe_str(1.0) }}|{{ safe_str(input) }}]", "[|1.0|{'input': 'the task', 'loop_number': 2, 'past_loops_metadata': {'improvements': 'add examples', 'insights': 'better | vague'}, 'previous_outputs': {'parent': {'response': 'parent answer'}, 'past_loops': [{'insights': 'vague', 'loop_number': 1, 'round': 'R1', 'score': 0.4, 'synthesis_insights': 'first synthesis'}, {'agreement_score': 0.7, 'insights': 'better', 'loop_number': 2, 'round': 'R2', 'score': 0.65, 'synthesis_insights': 'second synthesis'}]}}]", "[|1.0|the task]"},
		{"has_context", "{{ has_context('writer') }}|{{ has_context('empty') }}|{{ has_context('nope') }}", "True|True|False", "False|False|False"},
		{"truncate_text", "{{ truncate_text(get_input(), 5) }}|{{ truncate_text('abc') }}|{{ truncate_text(none) }}|{{ truncate_text('abcdef', 4, '..') }}", "th...|abc||ab..", "th...|abc||ab.."},
		{"format_loop_metadata", "{{ format_loop_metadata(get_past_loops(), 2) }}", "Loop 1: score=0.4, status=completed\nLoop 2: score=0.65, status=completed", "Loop 1: score=0.8, status=completed\nLoop 2: score=0.92, status=completed"},
		{"format_loop_metadata empty", "{{ format_loop_metadata([]) }}", "No previous loops", "No previous loops"},
		{"to_json_string", "{{ to_json_string({'a': [1, 2.0, none], 'é': true}) }}", `{"a": [1, 2.0, null], "é": true}`, `{"a": [1, 2.0, null], "é": true}`},
		{"society", "{{ get_progressive_response() }}", "No response available", "No response available"},
		{"collaborative", "{{ get_collaborative_responses() }}", "No collaborative responses available", "No collaborative responses available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.loop, render(t, tc.src, loopData()), "loop-shaped data")
			assert.Equal(t, tc.top, render(t, tc.src, topData()), "top-level data")
		})
	}
}

func TestHelpersReadOnlyTheirRender(t *testing.T) {
	// One parsed template, two renders with different data: helpers see each
	// call's own Data (they are bound per call, not captured at parse).
	tp, err := Parse("h", "{{ get_input() }}/{{ get_loop_number() }}/{{ has_past_loops() }}", Options{})
	require.NoError(t, err)
	a, err := tp.Render(loopData())
	require.NoError(t, err)
	b, err := tp.Render(Data{Input: "other"})
	require.NoError(t, err)
	assert.Equal(t, "the task/2/True", a)
	assert.Equal(t, "other/1/False", b)
}

func TestHelperEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		src  string
		d    Data
		want string
	}{
		{"input mapping without input key is its repr", "{{ get_input() }}", Data{Input: map[string]any{"q": "x"}}, "{'q': 'x'}"},
		{"nil input", "[{{ get_input() }}]", Data{}, "[]"},
		{"loop number from input mapping", "{{ get_loop_number() }}", Data{Input: map[string]any{"loop_number": 5}}, "5"},
		{"loop number from vars", "{{ get_loop_number() }}", Data{Vars: map[string]any{"loop_number": 4}}, "4"},
		{"score threshold from vars", "{{ get_score_threshold() }}", Data{Vars: map[string]any{"score_threshold": 0.75}}, "0.75"},
		{"past_loops at previous_outputs top", "{{ get_past_loops()|length }}", Data{Previous: map[string]any{"past_loops": []any{1, 2}}}, "2"},
		{"past_loops in a result", "{{ get_past_loops()|length }}", Data{Previous: map[string]any{"l": map[string]any{"result": map[string]any{"past_loops": []any{1}}}}}, "1"},
		{"typed past loops", "{% for p in get_past_loops() %}{{ p.score }}{% endfor %}|{{ get_past_insights() }}", Data{Input: map[string]any{"previous_outputs": map[string]any{"past_loops": []map[string]any{{"score": 0.5, "synthesis_insights": "s"}}}}}, "0.5|s"},
		{"first output in run order", "{{ get_loop_status() }}", Data{Previous: map[string]any{"a": map[string]any{"status": "A"}, "b": map[string]any{"status": "B"}}, PreviousOrder: []string{"b", "a"}}, "B"},
		{"sorted order without PreviousOrder", "{{ get_loop_status() }}", Data{Previous: map[string]any{"b": map[string]any{"status": "B"}, "a": map[string]any{"status": "A"}}}, "A"},
		{"final score from string", "{{ get_final_score() }}", Data{Previous: map[string]any{"s": map[string]any{"my_score": " 0.7 ", "x": 1}}}, "0.7"},
		{"final score unknown", "{{ get_final_score() }}|{{ get_loop_rounds() }}", Data{}, "Unknown|Unknown"},
		{"loops_completed", "{{ get_loop_rounds() }}", Data{Previous: map[string]any{"l": map[string]any{"loops_completed": 4}}}, "4"},
		{"society falls back to second id", "{{ get_realist_response() }}", Data{Previous: map[string]any{"pragmatic_realist": map[string]any{"response": "real"}}}, "real"},
		{"collaborative", "{{ get_collaborative_responses() }}", Data{Previous: map[string]any{"radical_progressive": map[string]any{"response": "p"}, "ethical_purist": map[string]any{"response": "q"}}}, "Progressive: p\n\nPurist: q"},
		{"has_context conversation", "{{ has_context('x') }}", Data{Input: map[string]any{"conversation_context": "yes"}}, "True"},
		{"has_context memories", "{{ has_context('x') }}", Data{Vars: map[string]any{"memories": []any{map[string]any{"agent_name": "x"}}}}, "True"},
		{"keyword arguments", "{{ safe_get(obj=input, key='a', default='d') }}", Data{Input: map[string]any{"a": 1}}, "1"},
		{"format_loop_metadata all with 0", "{{ format_loop_metadata([{'score': 1}, {}], 0) }}", Data{}, "Loop 1: score=1, status=completed\nLoop 2: score=N/A, status=completed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.src, tc.d))
		})
	}
}

func TestHelperArgumentErrors(t *testing.T) {
	for _, src := range []string{
		"{{ get_input(1) }}",
		"{{ get_agent_response() }}",
		"{{ safe_get(input) }}",
		"{{ safe_get_response('a', nope=1) }}",
		"{{ truncate_text('a', 'b') }}",
		"{{ get_loop_output() }}",
	} {
		t.Run(src, func(t *testing.T) {
			err := renderErr(t, src, Data{}, Options{})
			assert.Contains(t, err.Error(), "(): ")
		})
	}
}
