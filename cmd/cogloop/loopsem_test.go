package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The defects of issue 32 (loop semantics round 3), each as the CLI showed it.

// loopDoc is the part of run --json these tests read.
type loopDoc struct {
	Status   string                    `json:"status"`
	Output   any                       `json:"output"`
	Outputs  map[string]map[string]any `json:"outputs"`
	Errors   []struct{ Path, Agent, Message string }
	Warnings []struct{ Path, Agent, Code, Message string }
}

// runLoop writes wf and script to a temporary directory and runs them with --json.
func runLoop(t *testing.T, wf, script string, args ...string) (int, loopDoc, string) {
	t.Helper()
	dir := t.TempDir()
	all := []string{"run", writeFile(t, dir, "wf.yaml", wf), "x", "--json"}
	if script != "" {
		all = append(all, "--script", writeFile(t, dir, "replies.yaml", script))
	}
	code, out, errs := runCLI(t, append(all, args...)...)
	var doc loopDoc
	if out != "" {
		require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	}
	return code, doc, errs
}

const writerCritic = `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: %d
    score_threshold: 0.8
    output_agent: writer
%s    internal_workflow:
      orchestrator: {id: i, agents: [writer, critic]}
      agents:
        - {id: writer, type: openai-answer, model: m, prompt: "write"}
        - {id: critic, type: openai-answer, model: m, prompt: "judge"}
`

func warningsWith(doc loopDoc, s string) []string {
	var out []string
	for _, w := range doc.Warnings {
		if strings.Contains(w.Message, s) {
			out = append(out, w.Message)
		}
	}
	return out
}

// Item 2: a pass that meets the threshold ends the loop with stop_reason
// threshold even when it is the max_failed_passes-th failed pass in a row;
// the agent error stays listed and the run is ok. Item 11: its failed answer
// is not the loop's: pass 1's draft is, with an answer_failed warning.
func TestThresholdBeatsFailedPasses(t *testing.T) {
	wf := fmt.Sprintf(writerCritic, 4, "    max_failed_passes: 1\n")
	code, doc, errs := runLoop(t, wf, `writer: ["draft 1", {error: "boom"}]
critic: ["SCORE: 0.5", "SCORE: 0.8"]
`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "ok", doc.Status)
	assert.Equal(t, "threshold", doc.Outputs["l"]["stop_reason"])
	assert.Equal(t, true, doc.Outputs["l"]["threshold_met"])
	require.Len(t, doc.Errors, 1)
	assert.Equal(t, "writer", doc.Errors[0].Agent)
	assert.Equal(t, "draft 1", doc.Output)
	assert.Len(t, warningsWith(doc, `the answer of pass 2 failed (agent "writer"): the loop returns pass 1's answer`), 1, doc.Warnings)
}

// Item 11: with return: last, a writer failing on the last pass does not make
// the answer "": the latest pass with an answer gives it, with a warning;
// under return: best, the best pass with an answer. Under --strict the
// warning fails the run.
func TestFailedAnswerIsNeverTheLoopsAnswer(t *testing.T) {
	script := `writer: ["draft 1", "draft 2", {error: "boom"}]
critic: ["SCORE: 0.5", "SCORE: 0.7", "SCORE: 0.75"]
`
	code, doc, errs := runLoop(t, fmt.Sprintf(writerCritic, 3, ""), script)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "draft 2", doc.Output)
	assert.Equal(t, "max_loops", doc.Outputs["l"]["stop_reason"])
	require.Len(t, warningsWith(doc, "the answer of pass 3 failed"), 1, doc.Warnings)
	assert.Equal(t, "answer_failed", doc.Warnings[0].Code)

	code, doc, errs = runLoop(t, fmt.Sprintf(writerCritic, 3, "    return: best\n"), script)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "draft 2", doc.Output, "pass 3 scored best but has no answer")

	code, _, errs = runLoop(t, fmt.Sprintf(writerCritic, 3, ""), script, "--strict")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "the answer of pass 3 failed")
}

// Item 11: when no pass has an answer, the run fails naming the errors.
func TestNoAnswerInAnyPassFails(t *testing.T) {
	code, doc, errs := runLoop(t, fmt.Sprintf(writerCritic, 2, "    max_failed_passes: 5\n"), `writer: [{error: "first"}, {error: "second"}]
critic: ["SCORE: 0.5", "SCORE: 0.6"]
`)
	assert.Equal(t, 1, code, errs)
	assert.Equal(t, "failed", doc.Status)
	var msgs []string
	for _, e := range doc.Errors {
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "\n")
	assert.Contains(t, all, `no pass has an answer: agent "writer" failed in every pass that ran`)
	assert.Contains(t, all, "first")
	assert.Empty(t, doc.Output)
}

// Item 5: return: last_successful gives the loop's output_mappings from the
// returned pass too, not from the failed last one.
func TestLastSuccessfulDrivesOutputMappings(t *testing.T) {
	extra := `    return: last_successful
    output_mappings:
      - {source: {node: writer, output: response}, target: final_code}
`
	code, doc, errs := runLoop(t, fmt.Sprintf(writerCritic, 2, extra), `writer: ["code 1", {error: "boom"}]
critic: ["SCORE: 0.5", "SCORE: 0.6"]
`)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "code 1", doc.Output)
	outs, _ := doc.Outputs["l"]["outputs"].(map[string]any)
	assert.Equal(t, "code 1", outs["final_code"], doc.Outputs["l"])
	assert.EqualValues(t, 1, doc.Outputs["l"]["returned_iteration"])
}

// Item 7: a pass whose call the budget refused is not completed, and the loop
// returns the last completed pass, not the refused one's empty answer.
func TestBudgetRefusedPassIsNotCompleted(t *testing.T) {
	wf := `orchestrator: {id: w, agents: [l], pricing: {house: {prompt: 1, completion: 2}}}
agents:
  - id: l
    type: loop
    max_loops: 5
    score_threshold: 0.99
    budget: {max_tokens: 250}
    internal_workflow:
      orchestrator: {id: i, agents: [writer]}
      agents:
        - {id: writer, type: openai-answer, model: house, max_tokens: 100, prompt: "Write"}
`
	code, doc, errs := runLoop(t, wf, "writer: {cycle: [{text: 'draft SCORE: 0.1', usage: {prompt_tokens: 20, completion_tokens: 80}}]}\n")
	require.Equal(t, 0, code, errs)
	l := doc.Outputs["l"]
	assert.Equal(t, "budget", l["stop_reason"])
	iters := l["iterations"].([]any)
	require.Len(t, iters, 3, l)
	assert.Equal(t, false, iters[2].(map[string]any)["completed"], "the refused pass")
	assert.EqualValues(t, 2, l["loops_completed"])
	assert.Equal(t, "draft SCORE: 0.1", doc.Output)
}

// Item 1: a while/until condition that reads a missing field, or an agent
// the internal workflow does not define, is an error with its position, not a
// silent false that runs the loop to max_loops.
func TestConditionReadingAMissingFieldFails(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"previous_outputs.review.aproved", `undefined attribute "aproved"`},
		{"previous_outputs.revieww.approved", `undefined attribute "revieww"`},
		{"previous_outputs.review.approved and previous_outputs.review.score_x > 1", `undefined attribute "score_x"`},
	} {
		wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    stop_when:
      until: "` + tc.expr + `"
    internal_workflow:
      orchestrator: {id: i, agents: [review]}
      agents:
        - {id: review, type: openai-answer, model: m, prompt: "x"}
`
		code, doc, errs := runLoop(t, wf, "review: {cycle: ['{\"approved\": true}']}\n")
		assert.Equal(t, 1, code, errs)
		assert.Equal(t, "error", doc.Outputs["l"]["stop_reason"], tc.expr)
		assert.EqualValues(t, 1, doc.Outputs["l"]["loops_completed"], tc.expr)
		msg, _ := doc.Outputs["l"]["error"].(string)
		assert.Contains(t, msg, `stop_when until "`+tc.expr+`" at `, tc.expr)
		assert.Contains(t, msg, "wf.yaml:7:14 cannot be evaluated: "+tc.want, tc.expr)
	}
	// A field that is there still reads as it is.
	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
    stop_when: {until: "previous_outputs.review.approved"}
    internal_workflow:
      orchestrator: {id: i, agents: [review]}
      agents:
        - {id: review, type: openai-answer, model: m, prompt: "x"}
`
	code, doc, errs := runLoop(t, wf, "review: ['{\"approved\": false}', '{\"approved\": true}']\n")
	require.Equal(t, 0, code, errs)
	assert.EqualValues(t, 2, doc.Outputs["l"]["loops_completed"])
}

// Items 3 and 4: an initial value of vars: that is a template is rendered
// once at the loop's start and keeps its type (a list is iterated by item,
// not by character); a declared input's default reaches {outer: name}
// mappings and get_input() as it reaches {{ name }}.
func TestVarsTemplatesAndInputDefaults(t *testing.T) {
	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    inputs: [{name: topic, required: true}, {name: tone, default: plain}]
    input_mappings:
      - {source: {outer: tone}, target: style}
    vars:
      items: "{{ input.topic.split(',') }}"
      count: "{{ input.topic.split(',') | length }}"
    update:
      count: "{{ count + 1 }}"
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "{% for i in items %}[{{ i }}]{% endfor %} {{ count }} {{ style }} {{ tone }} {{ input.input.tone }} {{ get_input_field(input.input, 'tone') }}"}
`
	dir := t.TempDir()
	trace := dir + "/trace.jsonl"
	code, out, errs := runCLI(t, "run", writeFile(t, dir, "wf.yaml", wf), `{"topic": "x,y,z"}`, "--json-input", "--json",
		"--script", writeFile(t, dir, "r.yaml", "a: {cycle: ['SCORE: 0.1']}\n"), "--trace", trace)
	require.Equal(t, 0, code, errs)
	var doc loopDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, map[string]any{"items": []any{"x", "y", "z"}, "count": float64(5)}, doc.Outputs["l"]["vars"])
	var prompts []string
	for _, e := range readTrace(t, trace) {
		if e.Kind == "agent.end" && e.Agent == "a" {
			p := e.Prompt
			prompts = append(prompts, p)
		}
	}
	assert.Equal(t, []string{"[x][y][z] 3 plain plain plain plain", "[x][y][z] 4 plain plain plain plain"}, prompts)
}

// Item 6: retry: on a loop runs a failed pass again under the policy and
// counts the attempts in the pass's record.
func TestRetryOnALoopRerunsAFailedPass(t *testing.T) {
	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    retry: {count: 2, interval: 1ms, max_interval: 1ms}
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "x", retry: none}
`
	dir := t.TempDir()
	trace := dir + "/trace.jsonl"
	code, out, errs := runCLI(t, "run", writeFile(t, dir, "wf.yaml", wf), "x", "--json", "--trace", trace,
		"--script", writeFile(t, dir, "r.yaml", "a: [{error: boom}, {error: again}, 'SCORE: 0.95']\n"))
	require.Equal(t, 0, code, errs)
	var doc loopDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	l := doc.Outputs["l"]
	assert.Equal(t, "threshold", l["stop_reason"])
	iters := l["iterations"].([]any)
	require.Len(t, iters, 1)
	it := iters[0].(map[string]any)
	assert.EqualValues(t, 3, it["attempts"])
	assert.Nil(t, it["errors"], "the last attempt succeeded")
	assert.Equal(t, "SCORE: 0.95", doc.Output)
	retries := 0
	for _, e := range readTrace(t, trace) {
		if e.Kind == "agent.retry" && e.Agent == "l" {
			retries++
		}
	}
	assert.Equal(t, 2, retries)
}

// Item 8: the progress line shows the pass running now (not the passes
// finished as the current one), and "no score" until a pass has one; the
// summary says "no score" for a loop that never scored, not "best pass 1".
func TestProgressShowsTheRunningPass(t *testing.T) {
	_, shots := frames(100, []event.Event{
		{Kind: event.LoopStart, Node: "l", Data: map[string]any{"max_loops": 5}},
		{Kind: event.LoopPassStart, Node: "l", Data: map[string]any{"loop_number": 1, "max_loops": 5}},
		{Kind: event.LoopIteration, Node: "l", Data: map[string]any{"loop_number": 1, "max_loops": 5, "score": 0.0, "score_found": false, "best": 0.0}},
		{Kind: event.LoopPassStart, Node: "l", Data: map[string]any{"loop_number": 2, "max_loops": 5}},
		{Kind: event.LoopIteration, Node: "l", Data: map[string]any{"loop_number": 2, "max_loops": 5, "score": 0.7, "score_found": true, "best": 0.7}},
		{Kind: event.LoopPassStart, Node: "l", Data: map[string]any{"loop_number": 3, "max_loops": 5}},
	})
	assert.Equal(t, []string{"loop l pass 1/5", "loop l pass 1/5 · no score", "loop l pass 1/5 done · no score",
		"loop l pass 2/5 · no score", "loop l pass 2/5 done · best 0.70", "loop l pass 3/5 · best 0.70"}, lastLines(shots))

	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    stop_when: {until: "loop_number >= 2"}
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "x"}
`
	dir := t.TempDir()
	code, _, errs := runCLI(t, "run", writeFile(t, dir, "wf.yaml", wf), "x",
		"--script", writeFile(t, dir, "r.yaml", "a: {cycle: [no number here]}\n"))
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "l: 2/2 passes · – → – · stopped: condition · no score\n")
}

// lastLines is the progress line of each frame.
func lastLines(shots []string) []string {
	out := make([]string, len(shots))
	for i, s := range shots {
		lines := strings.Split(strings.TrimSuffix(s, "⏎\n"), "\n")
		out[i] = strings.TrimSpace(lines[len(lines)-1])
	}
	return out
}

// Item 9: TestRunIDResumeHintWithoutRedis (fork_test.go).

// Item 10: get_past_insights() returns the insights cognitive extraction
// found in past passes, not "No synthesis insights found".
func TestGetPastInsightsReturnsExtractedInsights(t *testing.T) {
	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.99
    cognitive_extraction:
      enabled: true
      extract_patterns:
        insights: ["INSIGHT:\\s*([^\\n]+)"]
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "past: {{ get_past_insights() }}"}
`
	dir := t.TempDir()
	trace := dir + "/trace.jsonl"
	code, _, errs := runCLI(t, "run", writeFile(t, dir, "wf.yaml", wf), "x", "--trace", trace,
		"--script", writeFile(t, dir, "r.yaml", "a: [\"INSIGHT: tides follow the moon closely\\nSCORE: 0.5\", 'SCORE: 0.6']\n"))
	require.Equal(t, 0, code, errs)
	var prompts []string
	for _, e := range readTrace(t, trace) {
		if e.Kind == "agent.end" && e.Agent == "a" {
			prompts = append(prompts, e.Prompt)
		}
	}
	assert.Equal(t, []string{"past: No synthesis insights found", "past: loop 1: tides follow the moon closely"}, prompts)
}

// Item 12: a lookup of a key a mapping lacks ({{ p.improvments }}) warns once
// per agent and name with a did-you-mean over the mapping's keys, and fails
// the run under --strict.
func TestMissingKeyOnAMappingWarns(t *testing.T) {
	wf := `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.99
    vars: {p: {improvements: "shorter", score: 1}}
    internal_workflow:
      orchestrator: {id: i, agents: [a, b]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "fix {{ p.improvments }}"}
        - {id: b, type: openai-answer, model: m, prompt: "{% for q in get_past_loops() %}{{ q.scroe }}{% endfor %}"}
`
	script := "a: {cycle: ['SCORE: 0.5']}\nb: {cycle: [ok]}\n"
	code, doc, errs := runLoop(t, wf, script)
	require.Equal(t, 0, code, errs)
	var got []string
	for _, w := range doc.Warnings {
		if w.Code == "missing_key" {
			got = append(got, w.Message)
		}
	}
	assert.Equal(t, []string{
		`agent "a" prompt: p has no key "improvments", so p.improvments renders empty; did you mean p.improvements?`, //nolint:misspell // the typo is the input under test
		`agent "b" prompt: q has no key "scroe", so q.scroe renders empty`,
	}, got, "once per agent and name: pass 2 reads both again")

	code, _, errs = runLoop(t, wf, script, "--strict")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "did you mean p.improvements?")
}

// Items 20-23: every loop is bounded in time (300s by default, timeout: none
// opts out with a note); fail_on makes max_loops or timeout stops fail the
// run; a loop whose only early exit is OrKa's default score patterns gets a
// note naming its exits; max_loops names its range in the message and schema.
func TestLoopBoundsAndExits(t *testing.T) {
	loop := func(keys string) string {
		return `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 3
` + keys + `    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "x"}
`
	}
	dir := t.TempDir()
	validate := func(keys string) (int, string) {
		code, _, errs := runCLI(t, "validate", writeFile(t, dir, "wf.yaml", loop(keys)))
		return code, errs
	}
	code, errs := validate("")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `no score pattern: OrKa's defaults read any 'SCORE:' or percentage in a pass's output, so an answer such as "90%" can end the loop`)
	assert.Contains(t, errs, "(its exits: max_loops 3, timeout 5m0s, a score >= 0.8 read by the default patterns)")

	code, errs = validate("    score_threshold: 0.9\n    timeout: none\n")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "no score pattern")
	assert.Contains(t, errs, "timeout: none: the loop has no time bound (the default is 5m0s)")

	code, errs = validate("    score_threshold: 0.9\n    fail_on: [max_loop]\n")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `fail_on lists stop reasons that fail the run: max_loops, timeout, not "max_loop"`)

	code, _, errs = runCLI(t, "validate", writeFile(t, dir, "wf.yaml", strings.Replace(loop(""), "max_loops: 3", "max_loops: 1001", 1)))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "max_loops must be between 1 and 1000, not 1001")
	var schema map[string]any
	_, out, _ := runCLI(t, "schema")
	require.NoError(t, json.Unmarshal([]byte(out), &schema))
	props := schema["$defs"].(map[string]any)["agent_loop"].(map[string]any)["properties"].(map[string]any)
	ml := props["max_loops"].(map[string]any)
	assert.Equal(t, []any{float64(1), float64(1000)}, []any{ml["minimum"], ml["maximum"]})
	assert.Equal(t, "5m0s", props["timeout"].(map[string]any)["default"])
	assert.Contains(t, props, "fail_on")

	// fail_on: [max_loops] fails the run; without it the same run is ok.
	wf := loop("    score_threshold: 0.9\n    fail_on: [max_loops]\n")
	script := "a: {cycle: ['SCORE: 0.1']}\n"
	code, doc, errs := runLoop(t, wf, script)
	assert.Equal(t, 1, code, errs)
	assert.Equal(t, "failed", doc.Status)
	assert.Equal(t, "max_loops", doc.Outputs["l"]["stop_reason"])
	assert.Contains(t, doc.Outputs["l"]["error"], `loop "l" stopped with stop_reason max_loops: it ran 3 passes (max_loops) without meeting a stop condition, and fail_on lists max_loops`)
	code, _, errs = runLoop(t, loop("    score_threshold: 0.9\n"), script)
	assert.Equal(t, 0, code, errs)
}

// Items 13, 17, 18: an unwritable working directory warns and runs without a
// record; --version works like version; init writes a .gitignore covering
// .cogloop/ and traces.
func TestNewcomerFirstHour(t *testing.T) {
	// .cogloop is a file, so .cogloop/runs cannot be made (as in a read-only
	// directory, also for root)
	dir := t.TempDir()
	writeFile(t, dir, ".cogloop", "")
	wd, err := os.Getwd()
	require.NoError(t, err)
	wf, script := filepath.Join(wd, hello), filepath.Join(wd, helloScript)
	t.Setenv(envRecordDir, "")
	t.Chdir(dir)
	code, out, errs := runCLI(t, "run", wf, "x", "--script", script)
	require.Equal(t, 0, code, errs)
	assert.NotEmpty(t, out)
	assert.Contains(t, errs, "the run goes on without a record")

	code, out, _ = runCLI(t, "--version")
	assert.Equal(t, 0, code)
	_, want, _ := runCLI(t, "version")
	assert.Equal(t, want, out)

	initDir := filepath.Join(t.TempDir(), "starter")
	code, _, errs = runCLI(t, "init", initDir)
	require.Equal(t, 0, code, errs)
	ignore, err := os.ReadFile(filepath.Join(initDir, ".gitignore"))
	require.NoError(t, err)
	assert.Contains(t, string(ignore), ".cogloop/\n")
	assert.Contains(t, string(ignore), "*.jsonl\n")
}

// Item 14: a lesson pattern ending in an unbounded (.+) gets a load note
// saying it runs DOTALL and how to end it at the line.
func TestUnboundedLessonPatternNote(t *testing.T) {
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [l]}
agents:
  - id: l
    type: loop
    max_loops: 2
    score_threshold: 0.9
    cognitive_extraction:
      extract_patterns:
        improvements: ["FIX:\\s*(.+)", "NOTE:\\s*(.+?)(?:\\n|$)"]
    internal_workflow:
      orchestrator: {id: i, agents: [a]}
      agents:
        - {id: a, type: openai-answer, model: m, prompt: "x"}
`)
	code, _, errs := runCLI(t, "validate", wf)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, `pattern "FIX:\\s*(.+)" ends in an unbounded group: patterns run DOTALL (OrKa)`)
	assert.NotContains(t, errs, `pattern "NOTE:`)
}

const nestedNoScore = `orchestrator: {id: w, agents: [outer]}
agents:
  - id: outer
    type: loop
    max_loops: 2
    score_threshold: 0.9
    internal_workflow:
      orchestrator: {id: o, agents: [inner, critic]}
      agents:
        - id: inner
          type: loop
          max_loops: 2
          score_threshold: 0.9
          internal_workflow:
            orchestrator: {id: i, agents: [writer]}
            agents:
              - {id: writer, type: openai-answer, model: m, prompt: "write"}
        - {id: critic, type: openai-answer, model: m, prompt: "judge"}
`

// Item 16: run and show print a nested loop's summary with one renderer (a
// line per run of the nested loop, with its max_loops), a pass without a
// score is "–", and runs shows no best score for a loop that never scored.
func TestNestedSummaryIsOneRenderer(t *testing.T) {
	dir := t.TempDir()
	recs := filepath.Join(dir, "runs")
	wf := writeFile(t, dir, "wf.yaml", nestedNoScore)
	replies := writeFile(t, dir, "r.yaml", `writer: ["SCORE: 0.3", "none", "SCORE: 0.5", "none"]
critic: ["nothing", "SCORE: 0.4"]
`)
	code, _, errs := runCLI(t, "run", wf, "x", "--script", replies, "--record-dir", recs, "--run-id", "n")
	require.Equal(t, exitOK, code, errs)
	want := []string{
		"outer: 2/2 passes · – → 0.40 · stopped: max_loops · best pass 2",
		"outer › iteration 1 › inner: 2/2 passes · 0.30 → – · stopped: max_loops · best pass 1",
		"outer › iteration 2 › inner: 2/2 passes · 0.50 → – · stopped: max_loops · best pass 1",
	}
	code, out, serrs := runCLI(t, "show", "n", "--record-dir", recs)
	require.Equal(t, exitOK, code, serrs)
	for _, w := range want {
		assert.Contains(t, errs, w+"\n", "run")
		assert.Contains(t, out, w+"\n", "show")
	}

	none := writeFile(t, dir, "none.yaml", `writer: ["a", "b", "c", "d"]
critic: ["e", "f"]
`)
	code, _, errs = runCLI(t, "run", wf, "x", "--script", none, "--record-dir", recs, "--run-id", "z")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "outer: 2/2 passes · – → – · stopped: max_loops · no score")
	code, out, _ = runCLI(t, "runs", "--record-dir", recs)
	require.Equal(t, exitOK, code)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "z ") {
			// A column, not a substring: the duration (70.007ms) may hold "0.00".
			assert.NotContains(t, strings.Fields(line), "0.00", "no score is not a best score of 0: %q", line)
		}
	}
}

// Item 17: OPENAI_BASE_URL without a scheme is reported naming the
// environment variable, not as model_url.
func TestBadOpenAIBaseURLNamesTheVariable(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "localhost:8080/v1")
	wf := writeFile(t, t.TempDir(), "wf.yaml", `orchestrator: {id: w, agents: [writer]}
agents:
  - {id: writer, type: openai-answer, model: m, prompt: "write"}
`)
	code, _, errs := runCLI(t, "validate", wf)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `the environment variable OPENAI_BASE_URL "localhost:8080/v1" must start with http:// or https://`)
	assert.NotContains(t, errs, "model_url \"localhost")
}
