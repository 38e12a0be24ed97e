package legacy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/types/legacy"
	"github.com/cogloop/cogloop/types/memories"
)

func registry(sleep *agenttest.Sleeper) *agents.Registry {
	r := agents.NewRegistry()
	memories.Register(r)
	legacy.RegisterWith(r, legacy.Options{Sleep: sleep.Sleep})
	return r
}

func load(t *testing.T, sleep *agenttest.Sleeper, agentsYAML string) (*cogloop.Workflow, error) {
	t.Helper()
	ids := []string{}
	for _, l := range strings.Split(agentsYAML, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "- id: "); ok {
			ids = append(ids, rest)
		}
	}
	src := "orchestrator: {id: w, agents: [" + strings.Join(ids, ", ") + "]}\nagents:\n" + agentsYAML
	return cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(registry(sleep)))
}

func run(t *testing.T, wf *cogloop.Workflow, input string) *cogloop.Result {
	t.Helper()
	store, err := memory.NewInMemory(memory.Options{})
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), input, cogloop.WithMemory(store))
	if err != nil { // a failed run still returns its result; the tests read its records
		require.ErrorIs(t, err, cogloop.ErrRunFailed)
		require.Equal(t, cogloop.StatusFailed, res.Status)
	}
	return res
}

func TestFailingWaitsThenFails(t *testing.T) {
	sleep := &agenttest.Sleeper{}
	wf, err := load(t, sleep, "  - id: broken\n    type: failing\n    prompt: ignored {{ input }}\n  - id: slow\n    type: failing\n    delay: 250ms\n")
	require.NoError(t, err)
	res := run(t, wf, "x")
	assert.Equal(t, map[string]string{
		"broken": "broken: failed intentionally after 5s (type failing always fails)",
		"slow":   "slow: failed intentionally after 250ms (type failing always fails)",
	}, res.Failed())
	assert.Equal(t, []time.Duration{legacy.DefaultFailDelay, 250 * time.Millisecond}, sleep.Waits())
}

func TestFailingStopsWaitingWhenTheRunEnds(t *testing.T) {
	f := &legacy.Failing{ID: "f", Delay: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Run(ctx, agents.Input{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestBinaryLooksForAffirmativeWordsInTheInput(t *testing.T) {
	wf, err := load(t, &agenttest.Sleeper{}, "  - id: b\n    type: binary\n    prompt: Is it true?\n")
	require.NoError(t, err)
	require.Len(t, wf.Warnings, 1)
	assert.Equal(t, "wf.yaml:4:5: agent \"b\": type binary is OrKa's rule-based agent: it answers true when the input contains yes, true or correct, and calls no model (use openai-binary for a model's judgement)", wf.Warnings[0].Error())
	for in, want := range map[string]bool{
		"Yes.": true, "that is TRUE": true, "correct!": true, "incorrect": false, "no": false, "yesterday": false, "": false,
	} {
		res := run(t, wf, in)
		out, _ := res.Outputs.Get("b")
		assert.Equal(t, want, out.Response, "%q", in)
		assert.Equal(t, "Is it true?", out.Prompt)
	}
}

func TestClassificationAnswersDeprecated(t *testing.T) {
	wf, err := load(t, &agenttest.Sleeper{}, "  - id: c\n    type: classification\n    options: [a, b]\n    prompt: classify\n")
	require.NoError(t, err)
	var warns []string
	for _, w := range wf.Warnings {
		warns = append(warns, w.Error())
	}
	assert.Equal(t, []string{
		`wf.yaml:4:5: agent "c": type classification is deprecated in OrKa: it always answers "deprecated" and calls no model (use openai-classification with options)`,
		`wf.yaml:5:5: agent "c": options is accepted for OrKa compatibility and ignored`,
	}, warns)
	out, _ := run(t, wf, "anything").Outputs.Get("c")
	assert.Equal(t, legacy.Deprecated, out.Response)
}

func TestStrictMakesTheLegacyWarningsErrors(t *testing.T) {
	src := "orchestrator: {id: w, agents: [b]}\nagents:\n  - {id: b, type: binary}\n"
	_, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(registry(&agenttest.Sleeper{})), cogloop.WithStrict())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wf.yaml:3:13")
	assert.Contains(t, err.Error(), "type binary is OrKa's rule-based agent")
}

func TestMemoryAliasesFixTheOperation(t *testing.T) {
	wf, err := load(t, &agenttest.Sleeper{}, `  - id: w
    type: memory-writer
    namespace: n
    prompt: "The sky is blue."
  - id: r
    type: memory-reader
    namespace: n
    config: {limit: 2}
    prompt: sky colour blue
`)
	require.NoError(t, err)
	assert.Empty(t, wf.Warnings)
	res := run(t, wf, "x")
	assert.Empty(t, res.Failed())
	w, _ := res.Outputs.Get("w")
	assert.Equal(t, "success", w.Fields["status"])
	r, _ := res.Outputs.Get("r")
	assert.Equal(t, 1, r.Fields["num_results"])
	assert.Equal(t, "The sky is blue.", r.Response)
}

func TestMemoryAliasProblems(t *testing.T) {
	for name, tc := range map[string]struct{ agent, want string }{
		"contradicting operation": {"  - id: r\n    type: memory-reader\n    config: {operation: write}\n",
			`wf.yaml:5:25: agent "r": type memory-reader always has operation read; config.operation "write" contradicts it`},
		"config not a mapping": {"  - id: w\n    type: memory-writer\n    config: [a]\n",
			`wf.yaml:5:5: agent "w": config must be a mapping, not a list`},
		"unknown key keeps its position": {"  - id: r\n    type: memory-reader\n    namespce: n\n",
			`wf.yaml:5:5: agent "r": unknown key "namespce" (did you mean "namespace"?)`},
		"reader-only key on a writer": {"  - id: w\n    type: memory-writer\n    config: {limit: 3}\n",
			`wf.yaml:5:14: agent "w": config: limit does nothing with operation: write; ignored`},
	} {
		t.Run(name, func(t *testing.T) {
			wf, err := load(t, &agenttest.Sleeper{}, tc.agent)
			text := ""
			if err != nil {
				text = err.Error()
			} else {
				for _, w := range wf.Warnings {
					text += w.Error() + "\n"
				}
			}
			assert.Contains(t, text, tc.want)
		})
	}
}

func TestMemoryAliasWithoutMemoryType(t *testing.T) {
	r := agents.NewRegistry()
	legacy.Register(r)
	src := "orchestrator: {id: w, agents: [m]}\nagents:\n  - {id: m, type: memory-reader}\n"
	_, err := cogloop.Parse([]byte(src), "wf.yaml", cogloop.WithRegistry(r))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `wf.yaml:3:5: agent "m": type memory-reader is an alias of memory, which this registry does not have`)
}

func TestLegacyLoadProblems(t *testing.T) {
	for name, tc := range map[string]struct{ agent, want string }{
		"failing delay":      {"  - id: f\n    type: failing\n    delay: soon\n", `wf.yaml:5:5: agent "f": delay: cannot read "soon"`},
		"failing unknown":    {"  - id: f\n    type: failing\n    dealy: 1s\n", `wf.yaml:5:5: agent "f": unknown key "dealy" (did you mean "delay"?)`},
		"binary prompt":      {"  - id: b\n    type: binary\n    prompt: [a]\n", `wf.yaml:5:5: agent "b": prompt must be text (a template), not a list`},
		"binary unknown":     {"  - id: b\n    type: binary\n    promt: p\n", `wf.yaml:5:5: agent "b": unknown key "promt" (did you mean "prompt"?)`},
		"classification tpl": {"  - id: c\n    type: classification\n    prompt: \"{{ x \"\n", `wf.yaml:5:`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, &agenttest.Sleeper{}, tc.agent)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
