package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
)

// Each assertion type passes on the quality example's run (answer
// qualityAnswer…, 3 passes, final score 0.9, stopped by threshold, no tokens)
// and fails with a reason that says what was wanted and what was found.
func TestEvalAssertionsPassAndFailWithReasons(t *testing.T) {
	cases := []struct {
		name, pass, fail, reason string
	}{
		{"contains", `{"type": "contains", "value": "Russian dolls"}`, `{"type": "contains", "value": "russian dolls"}`, `answer does not contain "russian dolls"`},
		{"icontains", `{"type": "icontains", "value": "RUSSIAN DOLLS"}`, `{"type": "icontains", "value": "matryoshka"}`, `answer does not contain "matryoshka" (any case)`},
		{"not-contains", `{"type": "not-contains", "value": "as an AI"}`, `{"type": "not-contains", "value": "tiniest"}`, `answer contains "tiniest"`},
		{"equals", `{"type": "equals", "value": "  Recursion is like Russian dolls: each doll holds a smaller one, and you stop at the tiniest. A function can do the same. "}`, `{"type": "equals", "value": "Recursion"}`, `answer is not "Recursion"`},
		{"regex", `{"type": "regex", "value": "(?i)^recursion\\s+is"}`, `{"type": "regex", "value": "^\\d+$"}`, `answer does not match /^\d+$/`},
		{"is-json", ``, `{"type": "is-json"}`, `answer is not JSON (invalid character 'R' looking for beginning of value at byte 1)`},
		{"similar", `{"type": "similar", "value": "Recursion is like Russian dolls: each doll holds a smaller one.", "threshold": 0.5}`, `{"type": "similar", "value": "Loops repeat."}`, `answer's similarity to "Loops repeat." is below 0.80`},
		{"passes", `{"type": "passes", "value": 3}`, `{"type": "passes", "value": 2}`, `the run took 3 passes, more than 2`},
		{"final_score", `{"type": "final_score", "value": 0.9}`, `{"type": "final_score", "value": 0.95}`, `final score 0.900 is below 0.95`},
		{"stop_reason", `{"type": "stop_reason", "value": "threshold"}`, `{"type": "stop_reason", "value": "max_loops"}`, `the loop stopped by "threshold", not "max_loops"`},
		{"tokens", `{"type": "tokens", "value": 0}`, ``, ``},
		{"cost", `{"type": "cost", "value": 0.01}`, ``, ``},
		{"latency", `{"type": "latency", "value": "1h"}`, ``, ``},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var lines []string
			if tc.pass != "" {
				lines = append(lines, `{"input": "x", "assert": [`+tc.pass+`]}`)
			}
			if tc.fail != "" {
				lines = append(lines, `{"input": "x", "assert": [`+tc.fail+`]}`)
			}
			ds := writeFile(t, dir, tc.name+".jsonl", strings.Join(lines, "\n"))
			out := filepath.Join(dir, tc.name+".out")
			code, _, errs := runCLI(t, "eval", quality, "--dataset", ds, "--script", qualityScript, "--out", out, "--concurrency", "1")
			rs := readResults(t, out)
			require.Len(t, rs, len(lines))
			if tc.pass != "" {
				assert.True(t, rs[0].Pass, "%s: %v", tc.pass, rs[0].Failures)
				assert.Equal(t, tc.name, rs[0].Assertions[0].Kind)
			}
			if tc.fail == "" {
				assert.Equal(t, exitOK, code, errs)
				return
			}
			assert.Equal(t, exitFailure, code)
			f := rs[len(rs)-1]
			assert.False(t, f.Pass)
			require.Len(t, f.Failures, 1)
			assert.Contains(t, f.Failures[0], tc.name+": "+tc.reason)
			assert.Contains(t, errs, fmt.Sprintf("FAIL line %d: %s: %s", len(lines), tc.name, tc.reason), "every failure's reason is on stderr")
		})
	}
}

// json-schema checks the answer's JSON against the schema; cost, tokens and
// latency fail on a priced run over a loopback OpenAI server.
func TestEvalJSONSchemaAndSpendAssertions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agenttest.WriteChatReply(w, `{"name": "Ada", "age": "ten"}`, 1000, 500)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "who", "assert": [{"type": "is-json"}, {"type": "json-schema", "value": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}}]}
{"input": "who", "assert": [{"type": "json-schema", "value": {"type": "object", "properties": {"age": {"type": "integer"}}}}]}
{"input": "who", "assert": [{"type": "tokens", "value": 1000}, {"type": "cost", "value": 0.0000001}, {"type": "latency", "value": "1ns"}]}
`)
	out := filepath.Join(dir, "out.jsonl")
	code, _, errs := runCLI(t, "eval", wf, "--dataset", ds, "--out", out)
	assert.Equal(t, exitFailure, code)
	rs := readResults(t, out)
	require.Len(t, rs, 3)
	assert.True(t, rs[0].Pass, "%v", rs[0].Failures)
	require.Len(t, rs[1].Failures, 1)
	assert.Contains(t, rs[1].Failures[0], "json-schema: answer does not match the schema")
	assert.Contains(t, rs[1].Failures[0], "/age")
	require.Len(t, rs[2].Failures, 3, "%v", rs[2].Failures)
	assert.Equal(t, "tokens: the run used 1500 tokens, more than 1000", rs[2].Failures[0])
	assert.Contains(t, rs[2].Failures[1], "cost: the run cost $")
	assert.Contains(t, rs[2].Failures[2], "latency: the run took ")
	assert.Contains(t, errs, "FAIL line 3: tokens: the run used 1500 tokens")
}

const judgedWorkflow = `orchestrator: {id: judged, agents: [writer]}
agents:
  - id: writer
    type: openai-answer
    model: gpt-4o-mini
    prompt: "Write about {{ get_input() }}"
  - id: grader
    type: openai-answer
    model: gpt-4o-mini
    prompt: "unused: the eval replaces it"
`

// llm-rubric asks a judge (an agent of the workflow, or a named model) and
// reads its JSON verdict; --script answers the judge by its agent id.
func TestEvalLLMRubricThroughScript(t *testing.T) {
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", judgedWorkflow)
	script := writeFile(t, dir, "replies.yaml", `writer: ["Cats sleep a lot."]
grader: ["Sure! {\"pass\": true, \"reason\": \"on topic\"}"]
judge: ["{\"pass\": false, \"reason\": \"it never mentions dogs\"}"]
`)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "cats", "assert": [{"type": "llm-rubric", "value": "The text is about cats", "judge": "grader"}]}
{"input": "dogs", "assert": [{"type": "llm-rubric", "value": "The text is about dogs", "model": "gpt-4o-mini"}]}
`)
	out := filepath.Join(dir, "out.jsonl")
	code, _, errs := runCLI(t, "eval", wf, "--dataset", ds, "--script", script, "--out", out)
	assert.Equal(t, exitFailure, code, errs)
	rs := readResults(t, out)
	require.Len(t, rs, 2)
	assert.True(t, rs[0].Pass, "%v", rs[0].Failures)
	assert.Equal(t, []string{`llm-rubric: judge "judge": it never mentions dogs`}, rs[1].Failures)
	assert.Contains(t, errs, `FAIL line 2: llm-rubric: judge "judge": it never mentions dogs`)

	// A reply that is not a verdict is a failure that quotes it.
	bad := writeFile(t, dir, "bad.yaml", "writer: [\"Cats.\"]\ngrader: [\"I think it passes\"]\n")
	code, _, errs = runCLI(t, "eval", wf, "--dataset", writeFile(t, dir, "one.jsonl", `{"input": "cats", "assert": [{"type": "llm-rubric", "value": "about cats", "judge": "grader"}]}`), "--script", bad)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, errs, `FAIL line 1: llm-rubric: judge "grader": the judge's reply is not a JSON object: "I think it passes"`)

	// A judge that is no agent of the workflow is refused before anything runs.
	code, stdout, errs := runCLI(t, "eval", wf, "--dataset", writeFile(t, dir, "nojudge.jsonl", `{"input": "x", "assert": [{"type": "llm-rubric", "value": "r", "judge": "nobody"}]}`), "--script", script)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, errs, `line 1: llm-rubric judge "nobody" is not an agent of `+wf)
}

// alternating answers "yes" and "no" in turn, over OpenAI's wire protocol.
func alternating(t *testing.T) string {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%2 == 1 {
			agenttest.WriteChatReply(w, "yes", 1, 1)
			return
		}
		agenttest.WriteChatReply(w, "no", 1, 1)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// --repeat runs each line N times; --pass-rate sets the share that must
// pass; a line with mixed outcomes is listed as flaky; --junit has one test
// case per line and repeat with the failures' reasons.
func TestEvalRepeatPassRateFlakyAndJUnit(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", alternating(t))
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "q", "name": "says yes", "assert": [{"type": "equals", "value": "yes"}]}`+"\n")
	junit := filepath.Join(dir, "j.xml")
	code, stdout, errs := runCLI(t, "eval", wf, "--dataset", ds, "--repeat", "4", "--concurrency", "1", "--pass-rate", "0.8", "--junit", junit)
	assert.Equal(t, exitFailure, code, "half the runs pass, below 0.8")
	assert.Equal(t, "50.0% (2 of 4 runs; need 80.0%)", tableRow(stdout, "pass rate"))
	assert.Equal(t, "line 1", tableRow(stdout, "below pass rate"))
	assert.Equal(t, "line 1 (some repeats passed, some failed)", tableRow(stdout, "flaky"))
	assert.Contains(t, errs, `FAIL line 1 (repeat 2): equals: answer is not "yes": "no"`)

	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	assert.Equal(t, 4, s.Tests)
	assert.Equal(t, 2, s.Failures)
	require.Len(t, s.Cases, 4)
	for i, c := range s.Cases {
		assert.Equal(t, fmt.Sprintf("line 1 says yes #%d", i+1), c.Name)
		if i%2 == 0 {
			assert.Nil(t, c.Failure)
			continue
		}
		require.NotNil(t, c.Failure)
		assert.Equal(t, "1 assertion(s) failed", c.Failure.Message)
		assert.Equal(t, `equals: answer is not "yes": "no"`, c.Failure.Text)
	}

	code, stdout, _ = runCLI(t, "eval", wf, "--dataset", ds, "--repeat", "4", "--concurrency", "1", "--pass-rate", "0.5")
	assert.Equal(t, exitOK, code, "0.5 is met: %s", stdout)
	code, _, errs = runCLI(t, "eval", wf, "--dataset", ds, "--pass-rate", "80")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--pass-rate must be between 0 and 1")
}

// A failed run is a JUnit error; XML-special text in reasons stays text.
func TestEvalJUnitErrorsAndEscaping(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "down") {
			http.Error(w, `{"error": {"message": "<down> & out"}}`, http.StatusBadRequest)
			return
		}
		agenttest.WriteChatReply(w, "a <b>tag</b> & more", 1, 1)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	dir := t.TempDir()
	wf := writeFile(t, dir, "wf.yaml", modelWorkflow)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "down"}`+"\n"+`{"input": "b", "assert": [{"type": "contains", "value": "]]>"}]}`+"\n")
	junit := filepath.Join(dir, "j.xml")
	code, _, _ := runCLI(t, "eval", wf, "--dataset", ds, "--junit", junit, "--concurrency", "1")
	assert.Equal(t, exitFailure, code)
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(data, &doc), string(data))
	s := doc.Suites[0]
	assert.Equal(t, []int{2, 1, 1}, []int{s.Tests, s.Errors, s.Failures})
	require.NotNil(t, s.Cases[0].Error, "a failed run is an error")
	assert.Equal(t, "run failed", s.Cases[0].Error.Type)
	assert.Contains(t, s.Cases[0].Error.Text, "the run failed: ")
	require.NotNil(t, s.Cases[1].Failure)
	assert.Contains(t, s.Cases[1].Failure.Text, `answer does not contain "]]>"`)
	assert.Equal(t, "a <b>tag</b> & more", s.Cases[1].SystemOut)
	assert.NotContains(t, string(data), "<b>tag", "text is escaped in the XML")
}

// An llm-rubric judge's tokens and cost are kept with the line's figures
// (judge_tokens, judge_cost in --out; a "judge tokens" row in the table),
// apart from the workflow's own; --replay refuses a dataset with judges,
// saying why, since a recorded run holds no judge calls.
func TestEvalJudgeUsageAndReplay(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envRecordDir, filepath.Join(dir, "runs"))
	wf := writeFile(t, dir, "wf.yaml", judgedWorkflow)
	script := writeFile(t, dir, "replies.yaml", `writer: [{text: "Cats sleep a lot.", usage: {prompt_tokens: 10, completion_tokens: 5}}]
grader: [{text: "{\"pass\": true, \"reason\": \"on topic\"}", usage: {prompt_tokens: 300, completion_tokens: 20}}]
`)
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "cats", "assert": [{"type": "llm-rubric", "value": "The text is about cats", "judge": "grader"}]}`+"\n")
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, errs := runCLI(t, "eval", wf, "--dataset", ds, "--script", script, "--out", out)
	require.Equal(t, exitOK, code, errs)
	rs := readResults(t, out)
	require.Len(t, rs, 1)
	assert.Equal(t, 15, rs[0].Tokens, "the workflow's own tokens")
	assert.Equal(t, 320, rs[0].JudgeTokens, "the judge's tokens are kept")
	assert.Greater(t, rs[0].JudgeCost, 0.0, "gpt-4o-mini is priced")
	require.Len(t, rs[0].Assertions, 1)
	assert.Equal(t, 320, rs[0].Assertions[0].Tokens)
	assert.Regexp(t, `judge tokens\s+320, \$0\.\d+ \(llm-rubric`, stdout+errs)

	// A recorded run of the workflow, then an eval replaying it with a judge.
	code, _, errs = runCLI(t, "run", wf, "cats", "--script", script, "--run-id", "judged1")
	require.Equal(t, exitOK, code, errs)
	code, stdout, errs = runCLI(t, "eval", wf, "--dataset", ds, "--replay", "judged1")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, errs, `--replay cannot answer llm-rubric judges: a recorded run holds the workflow's model calls, not the judge's`)
	assert.Contains(t, errs, `replies for "grader"`)

	// Without the judge the same replay runs.
	plain := writeFile(t, dir, "plain.jsonl", `{"input": "cats", "assert": [{"type": "contains", "value": "Cats"}]}`+"\n")
	code, _, errs = runCLI(t, "eval", wf, "--dataset", plain, "--replay", "judged1")
	assert.Equal(t, exitOK, code, errs)
}
