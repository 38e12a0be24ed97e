package agents_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/prompt"
)

// TestHistoryHelpersWithoutEveryOutput: a template that calls the history
// helpers no longer binds every earlier output (issue 31.3), and renders what
// it rendered with all of them bound (Input.Data), wherever the history is:
// in the loop's input, in an output named past_loops, in the first output
// holding one (or its result), behind repeated ids, or nowhere.
func TestHistoryHelpersWithoutEveryOutput(t *testing.T) {
	const src = `{% if has_past_loops() %}{% for p in get_past_loops() %}[{{ p.n }}]{% endfor %}{% endif %}` +
		`|{{ get_past_insights() }}|{{ get_past_loop_data('n') }}|{{ previous_outputs.plain.response }}`
	tp, err := prompt.Parse("history", src, prompt.Options{})
	require.NoError(t, err)
	ids, all := tp.Outputs()
	assert.False(t, all, "the history helpers do not make the template read every output")
	assert.Equal(t, []string{"plain"}, ids)
	assert.True(t, tp.SearchesHistory())

	hist := func(ns ...int) []any {
		var out []any
		for _, n := range ns {
			out = append(out, map[string]any{"n": n, "synthesis_insights": "ins" + string(rune('0'+n))})
		}
		return out
	}
	plain := agents.Output{Response: "P"}
	loopOut := func(ns ...int) agents.Output {
		return agents.Output{Response: "L", Fields: map[string]any{"past_loops": hist(ns...)}}
	}
	nested := agents.Output{Response: "N", Fields: map[string]any{"result": map[string]any{"past_loops": hist(7)}}}
	var none *agents.Outputs
	for _, tc := range []struct {
		name  string
		input any
		prev  *agents.Outputs
		want  string
	}{
		{"nothing", "task", none, "|No synthesis insights found|No past loops found|"},
		{"no history", "task", none.With("plain", plain), "|No synthesis insights found|No past loops found|P"},
		{"in the loop's input", map[string]any{"input": "task", "previous_outputs": map[string]any{"past_loops": hist(1, 2)}},
			none.With("plain", plain).With("l", loopOut(9)), "[1][2]|ins2|2|P"},
		{"first loop output", "task", none.With("plain", plain).With("l1", loopOut(1, 2)).With("l2", loopOut(3)), "[1][2]|ins2|2|P"},
		{"in a result", "task", none.With("n", nested).With("l2", loopOut(3)), "[7]|ins7|7|"},
		{"named past_loops wins", "task", none.With("l1", loopOut(1)).With("past_loops", agents.Output{Response: "X"}).With("plain", plain), "|No synthesis insights found|No past loops found|P"},
		{"repeated id takes the newest", "task", none.With("l1", loopOut(1)).With("plain", plain).With("l1", loopOut(4, 5)), "[4][5]|ins5|5|P"},
		{"empty history", "task", none.With("l1", loopOut()).With("l2", loopOut(3)), "|No synthesis insights found|No past loops found|"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := agents.Input{Value: tc.input, Previous: tc.prev}
			want, err := tp.Render(in.Data())
			require.NoError(t, err)
			got, err := in.Render(tp)
			require.NoError(t, err)
			assert.Equal(t, want, got, "as with every output bound")
			assert.Equal(t, tc.want, got)
		})
	}
}
