package flow_test

import (
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailoverTakesTheFirstValidChildInOrder(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [fo, after]}
agents:
  - id: fo
    type: failover
    children:
      - {id: primary, type: fail, message: rate limited}
      - {id: blank, type: const, response: "  "}
      - {id: backup, type: scripted, prompt: "backup for {{ get_input() }}", responses: [{text: "backup answer", usage: {prompt_tokens: 4, completion_tokens: 2}}]}
      - {id: never, type: const, response: not reached}
  - {id: after, type: echo, prompt: "{{ previous_outputs.fo.response }} from {{ previous_outputs.fo.successful_child }} ({{ previous_outputs.fo.backup.response }})"}
`)
	out, rec, err := run(t, wf, "tides")
	require.NoError(t, err)
	assert.Equal(t, "backup answer from backup (backup answer)", out.Response)
	fo := get(t, out.Children, "fo")
	assert.Equal(t, "backup for tides", fo.Prompt)
	assert.Equal(t, spend.Usage{PromptTokens: 4, CompletionTokens: 2}, fo.Usage)
	assert.Equal(t, []string{"primary", "blank", "backup"}, fo.Children.IDs())
	assert.Equal(t, "backup answer", fo.Fields["result"].(map[string]any)["response"])
	assert.Equal(t, []string{"fo", "after"}, out.Children.IDs(), "children are not workflow agents")

	var tried []string
	for _, e := range rec.Events() {
		if e.Kind == event.AgentStart {
			tried = append(tried, e.Node)
		}
	}
	assert.Equal(t, []string{"fo", "fo › primary", "fo › blank", "fo › backup", "after"}, tried)
}

func TestFailoverWhenEveryChildFails(t *testing.T) {
	w := &world{}
	wf, _ := w.parse(t, `orchestrator: {id: w, agents: [fo, after]}
agents:
  - id: fo
    type: failover
    children:
      - {id: first, type: fail, message: timeout}
      - {id: second, type: panic, message: kaboom}
      - {id: third, type: const, response: ""}
  - {id: after, type: const, response: goes on}
`)
	out, _, err := run(t, wf, "x")
	require.NoError(t, err)
	fo := get(t, out.Children, "fo")
	require.True(t, fo.Failed())
	assert.Contains(t, fo.Err, "fo: every child failed: first: timeout; second: panic: kaboom")
	assert.Contains(t, fo.Err, "; third: empty response")
	assert.Equal(t, "goes on", out.Response)
}

// A fatal error of a child is that child failing: the failover tries the next.
// When every child failed fatally, the failover's error is fatal and stops the
// run; a mix of fatal and other failures is an ordinary error record.
func TestFailoverAndFatalChildren(t *testing.T) {
	tests := []struct {
		name, children string
		fatal          bool   // the run stops with a fatal error
		want           string // the failover's response, or its error
	}{
		{"fatal then good", "[{id: a, type: fail, message: no key, fix: set A_KEY}, {id: b, type: const, response: from b}]", false, "from b"},
		{"all fatal", "[{id: a, type: fail, message: no key, fix: set A_KEY}, {id: b, type: fail, message: HTTP 401, fix: check B_KEY}]", true,
			"fo: every child failed: a: no key (set A_KEY); b: HTTP 401 (check B_KEY)"},
		{"fatal and transient", "[{id: a, type: fail, message: no key, fix: set A_KEY}, {id: b, type: fail, message: HTTP 503}]", false,
			"fo: every child failed: a: no key (set A_KEY); b: HTTP 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &world{}
			wf, _ := w.parse(t, "orchestrator: {id: w, agents: [fo, after]}\nagents:\n  - {id: fo, type: failover, children: "+tc.children+"}\n  - {id: after, type: const, response: after}\n")
			out, _, err := run(t, wf, "x")
			if tc.fatal {
				require.Error(t, err)
				assert.True(t, fault.IsFatal(err))
				assert.Equal(t, tc.want, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "after", out.Response, "the run goes on")
			fo := get(t, out.Children, "fo")
			if fo.Failed() {
				assert.Equal(t, tc.want, fo.Err)
			} else {
				assert.Equal(t, tc.want, fo.Response)
			}
		})
	}
}
