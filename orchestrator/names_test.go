package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/prompt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// namesRegistry is orkaRegistry's with loops.
func namesRegistry() *agents.Registry {
	reg := orkaRegistry()
	loopnode.Register(reg)
	return reg
}

// templateProblems loads src and returns its problems that come from the
// template name checks, as "pos: message" (E: for errors, W: for warnings).
func templateProblems(t *testing.T, src string, opts ...Option) []string {
	t.Helper()
	_, warns, err := Parse([]byte(src), "wf.yaml", namesRegistry(), opts...)
	probs := append([]load.Problem(nil), warns...)
	if err != nil {
		var le *load.Error
		require.ErrorAs(t, err, &le, "only load problems")
		probs = append(probs, le.Problems...)
	}
	var out []string
	for _, p := range probs {
		if !strings.Contains(p.Msg, " template: ") && !strings.Contains(p.Msg, "stop_when while") && !strings.Contains(p.Msg, "stop_when until") {
			continue
		}
		kind := "E: "
		if p.Warning {
			kind = "W: "
		}
		out = append(out, kind+p.Error())
	}
	return out
}

func TestTemplateNamesAreChecked(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "undefined function is an error with did-you-mean",
			src: `orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: echo, prompt: "Topic: {{ get_inptu() }}"}
`,
			want: []string{`E: wf.yaml:3:44: agent "a": prompt template: undefined function get_inptu(); did you mean get_input?`},
		},
		{
			name: "undefined filter and test in a block scalar",
			src: `orchestrator: {id: w, agents: [a]}
agents:
  - id: a
    type: echo
    prompt: |
      line one
      {{ input | truncat(10) }}{% if input is strng %}x{% endif %}
`,
			want: []string{
				`E: wf.yaml:7:18: agent "a": prompt template: undefined filter "truncat"; did you mean truncate?`,
				`E: wf.yaml:7:47: agent "a": prompt template: undefined test "strng"; did you mean string?`,
			},
		},
		{
			name: "typo of an agent id",
			src: `orchestrator: {id: w, agents: [writer, editor]}
agents:
  - {id: writer, type: echo, prompt: "draft"}
  - {id: editor, type: echo, prompt: "Edit: {{ previous_outputs.writr.response }}"}
`,
			want: []string{`W: wf.yaml:4:65: agent "editor": prompt template: previous_outputs has no "writr" here: no agent "writr" can have run before this one; did you mean writer?`},
		},
		{
			name: "undefined variable",
			src: `orchestrator: {id: w, agents: [a]}
agents:
  - {id: a, type: echo, prompt: "About {{ topic }}"}
`,
			want: []string{`W: wf.yaml:3:43: agent "a": prompt template: undefined variable "topic" renders empty`},
		},
		{
			name: "an agent later in the queue, by every spelling",
			src: `orchestrator: {id: w, agents: [a, b]}
agents:
  - {id: a, type: echo, prompt: "{{ previous_outputs['b'] }} {{ get_agent_response('b') }} {{ previous_outputs.get('b') }}"}
  - {id: b, type: echo, prompt: "{{ previous_outputs.a.response }} {{ safe_get_response('a.response', '-') }}"}
`,
			want: []string{
				`W: wf.yaml:3:54: agent "a": prompt template: previous_outputs has no "b" here: no agent "b" can have run before this one ("b" runs after "a")`,
				`W: wf.yaml:4:89: agent "b": prompt template: previous_outputs has no "a.response" here: no agent "a.response" can have run before this one ("a.response" is looked up as one agent id, not a path; write previous_outputs.a.response to read the field of agent "a")`,
			},
		},
		{
			name: "guarded names and template locals are fine",
			src: `orchestrator: {id: w, agents: [a]}
agents:
  - id: a
    type: echo
    prompt: |
      {% set n = 3 %}{% for x in [1, 2] %}{{ x }}{{ loop.index }}{% endfor %}{{ n }}
      {{ topic | default('none') }}{% if extra is defined %}{{ extra }}{% endif %}
      {% if has_context('later') %}{{ previous_outputs.later }}{% endif %}
      {% macro m(p) %}{{ p }}{% endmacro %}{{ m(1) }}{% set ns = namespace(k=1) %}{{ ns.k }} {{ nothere }}
`,
			want: []string{`W: wf.yaml:9:97: agent "a": prompt template: undefined variable "nothere" renders empty`},
		},
		{
			name: "fork branches are visible after the fork, router routes after the router",
			src: `orchestrator: {id: w, agents: [f, j, r, last]}
agents:
  - {id: f, type: fork, targets: [[b1], [b2]]}
  - {id: b1, type: echo, prompt: "one"}
  - {id: b2, type: echo, prompt: "two"}
  - {id: j, type: join, group: f}
  - {id: d, type: echo, prompt: "yes"}
  - {id: r, type: router, params: {decision_key: j, routing_map: {"yes": [r1]}}}
  - {id: r1, type: echo, prompt: "{{ previous_outputs.b1.response }} {{ previous_outputs.j }}"}
  - {id: last, type: echo, prompt: "{{ previous_outputs.b2.response }} {{ previous_outputs.r1.response }} {{ previous_outputs.zz }}"}
`,
			want: []string{`W: wf.yaml:10:127: agent "last": prompt template: previous_outputs has no "zz" here: no agent "zz" can have run before this one`},
		},
		{
			name: "a loop's agents see its variables; later agents of the pass and outer agents are absent",
			src: `orchestrator: {id: w, agents: [first, improve, after]}
agents:
  - {id: first, type: echo, prompt: "start"}
  - id: improve
    type: loop
    max_loops: 2
    input_mappings:
      - {source: {outer: input}, target: task}
    past_loops_metadata:
      score: "{{ score }}"
      note: "{{ insights }} {{ previous_outputs.critic }}"
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - id: writer
          type: echo
          prompt: "{{ task }} {{ loop_number }} {{ loop_index }} {{ improve_loop_count }} {{ past_loops_metadata.score }} {{ score }} {{ previous_outputs.critic }} {{ previous_outputs.first }} {{ input.previous_outputs.first }}"
        - {id: critic, type: echo, prompt: "{{ previous_outputs.writer.response }}"}
  - {id: after, type: echo, prompt: "{{ previous_outputs.improve.response }} {{ previous_outputs.writer }} {{ loop_number }}"}
`,
			want: []string{
				`W: wf.yaml:11:49: agent "improve": past_loops_metadata: note template: previous_outputs has no "critic" here: no agent "critic" can have run before this one (past_loops_metadata templates see no previous_outputs; read the pass's values as score, insights, improvements, mistakes)`,
				`W: wf.yaml:17:155: agent "writer": prompt template: previous_outputs has no "critic" here: no agent "critic" can have run before this one ("critic" runs after "writer" in each pass of loop "improve", and every pass starts with empty previous_outputs; earlier passes are in past_loops)`,
				`W: wf.yaml:17:185: agent "writer": prompt template: previous_outputs has no "first" here: no agent "first" can have run before this one ("first" runs outside loop "improve"; inside the loop read input.previous_outputs.first)`,
				`W: wf.yaml:19:98: agent "after": prompt template: previous_outputs has no "writer" here: no agent "writer" can have run before this one ("writer" runs inside loop "improve", whose agents' outputs stay inside it; read previous_outputs.improve (the loop's output))`,
				`W: wf.yaml:19:111: agent "after": prompt template: undefined variable "loop_number" renders empty`,
			},
		},
		{
			name: "past_loops_metadata sees further extract_patterns categories",
			src: `orchestrator: {id: w, agents: [improve]}
agents:
  - id: improve
    type: loop
    cognitive_extraction: {enabled: true, extract_patterns: {insights: ["insight: (.+)"], risks: ["risk: (.+)"]}}
    past_loops_metadata: {r: "{{ risks }} {{ reasoning_quality }} {{ riskz }}"}
    internal_workflow:
      orchestrator: {id: inner, agents: [a]}
      agents:
        - {id: a, type: echo, prompt: "ok"}
`,
			want: []string{`W: wf.yaml:6:70: agent "improve": past_loops_metadata: r template: undefined variable "riskz" renders empty; did you mean risks?`},
		},
		{
			name: "stop_when expressions are checked against what the loop provides",
			src: `orchestrator: {id: w, agents: [improve]}
agents:
  - id: improve
    type: loop
    stop_when:
      - while: "score < 0.9 and loop_index < 3 and previous_outputs.critc.approved != true"
      - until: "get_loop_numbr() > best_score or scroe > 1"
    internal_workflow:
      orchestrator: {id: inner, agents: [critic]}
      agents:
        - {id: critic, type: echo, prompt: "ok"}
`,
			want: []string{
				`W: wf.yaml:6:69: agent "improve": stop_when while: previous_outputs has no "critc" here: no agent "critc" can have run before this one; did you mean critic?`,
				`W: wf.yaml:7:50: agent "improve": stop_when until: undefined variable "scroe" renders empty; did you mean score?`,
				`E: wf.yaml:7:17: agent "improve": stop_when until: undefined function get_loop_numbr(); did you mean get_loop_number?`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, templateProblems(t, tc.src))
		})
	}
}

func TestTemplateNameWarningsAreErrorsUnderStrict(t *testing.T) {
	src := "orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: echo, prompt: \"{{ topic }}\"}\n"
	assert.Equal(t, []string{`W: wf.yaml:3:37: agent "a": prompt template: undefined variable "topic" renders empty`}, templateProblems(t, src))
	assert.Equal(t, []string{`E: wf.yaml:3:37: agent "a": prompt template: undefined variable "topic" renders empty (an error under strict mode)`}, templateProblems(t, src, WithStrict()))
}

// BenchmarkParseChecksNames loads a 200-agent chain whose every prompt reads
// the agent before it, helpers and a filter: the name checks' share of a load
// shows in its profile (checkTemplates).
func BenchmarkParseChecksNames(b *testing.B) {
	var src strings.Builder
	src.WriteString("orchestrator: {id: w, agents: [")
	for i := range 200 {
		if i > 0 {
			src.WriteString(", ")
		}
		fmt.Fprintf(&src, "a%d", i)
	}
	src.WriteString("]}\nagents:\n")
	for i := range 200 {
		fmt.Fprintf(&src, "  - {id: a%d, type: echo, prompt: \"Task: {{ get_input() }} Earlier: {{ previous_outputs.a%d.response | truncate(300) }}{%% if get_loop_number() > 1 %%}again{%% endif %%}\"}\n", i, max(i-1, 0))
	}
	reg := namesRegistry()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse([]byte(src.String()), "wf.yaml", reg); err != nil {
			b.Fatal(err)
		}
	}
}

// A template a factory makes (not written in the file, so without a line)
// reads variables the factory binds itself: only its calls are checked.
func TestFactoryMadeTemplatesAreCheckedForCallsOnly(t *testing.T) {
	reg := namesRegistry()
	reg.MustRegister("wrapper", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		for _, src := range []string{"{{ inner_prompt }}", "{{ get_inptu() }}"} {
			node := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "prompt"}, {Kind: yaml.ScalarNode, Value: src}}}
			b.Template(load.NewConfig(c.File(), node, c.What()+" inner", c.Problems()), "prompt")
		}
		return agents.Func(func(context.Context, agents.Input) (agents.Output, error) { return agents.Output{}, nil }), nil
	})
	_, _, err := Parse([]byte("orchestrator: {id: w, agents: [a]}\nagents:\n  - {id: a, type: wrapper}\n"), "wf.yaml", reg)
	require.Error(t, err)
	assert.Equal(t, `wf.yaml: agent "a" inner: prompt template: undefined function get_inptu(); did you mean get_input?`, err.Error())
}

// A template built in Go code escapes the load check; calling its undefined
// function at run time ends the run at once, with the did-you-mean.
func TestUndefinedFunctionAtRunTimeEndsTheRun(t *testing.T) {
	reg := namesRegistry()
	reg.MustRegister("gocode", func(b *agents.Builder, c *load.Config) (agents.Agent, error) {
		tp, err := prompt.Parse("go template", "{{ get_inptu() }}", prompt.Options{})
		require.NoError(t, err)
		return agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
			s, err := in.Render(tp)
			return agents.Output{Response: s}, err
		}), nil
	})
	w, _, err := Parse([]byte("orchestrator: {id: w, agents: [a, b]}\nagents:\n  - {id: a, type: gocode}\n  - {id: b, type: echo, prompt: after}\n"), "wf.yaml", reg)
	require.NoError(t, err)
	out, err := w.Run(context.Background(), agents.Input{Value: "x"})
	require.Error(t, err)
	assert.True(t, fault.IsFatal(err))
	assert.Equal(t, `a: render template "go template" line 1: get_inptu is not callable (did you mean get_input?)`, err.Error())
	assert.Equal(t, 0, out.Children.Len(), "b never ran")
}
