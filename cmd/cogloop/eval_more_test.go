package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compareRow is the A and B columns of the compare table's row key.
func compareRow(table, key string) []string {
	for _, line := range strings.Split(table, "\n") {
		if rest, ok := strings.CutPrefix(line, key+"  "); ok {
			return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(rest), -1)
		}
	}
	return nil
}

// Two workflows on the same lines: the table side by side, and the lines
// whose results differ.
func TestEvalComparesTwoWorkflows(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(quality)
	require.NoError(t, err)
	lower := writeFile(t, dir, "lower.yaml", strings.Replace(string(src), "score_threshold: 0.85", "score_threshold: 0.7", 1))
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "a", "assert": [{"type": "passes", "value": 2}]}
{"input": "b"}
`)
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, errs := runCLI(t, "eval", quality, lower, "--dataset", ds, "--script", qualityScript, "--out", out)
	assert.Equal(t, exitFailure, code, "A fails line 1's assertion: %s", errs)
	assert.Equal(t, []string{quality, lower}, compareRow(stdout, "workflow"))
	assert.Equal(t, []string{"50.0%", "100.0%"}, compareRow(stdout, "pass rate"))
	assert.Equal(t, []string{"0.900", "0.710"}, compareRow(stdout, "mean final score"))
	assert.Equal(t, []string{"3.0", "2.0"}, compareRow(stdout, "passes per run"))
	assert.Equal(t, []string{"0", "0"}, compareRow(stdout, "tokens"))
	assert.Equal(t, []string{"$0.0000", "$0.0000"}, compareRow(stdout, "cost"))
	assert.Contains(t, stdout, "lines that differ:")
	assert.Regexp(t, `(?m)^1\s+0/1\s+1/1\s+0\.900\s+0\.710\s+3\.0\s+2\.0$`, stdout)
	assert.Regexp(t, `(?m)^2\s+1/1\s+1/1\s+0\.900\s+0\.710\s+3\.0\s+2\.0$`, stdout)
	assert.Contains(t, errs, "FAIL "+quality+" line 1: passes: the run took 3 passes, more than 2")
	rs := readResults(t, out)
	require.Len(t, rs, 4)
	workflows := map[string]int{}
	for _, r := range rs {
		workflows[r.Workflow]++
	}
	assert.Equal(t, map[string]int{quality: 2, lower: 2}, workflows, "--out names each run's workflow")

	code, stdout, _ = runCLI(t, "eval", quality, quality, "--dataset", ds, "--script", qualityScript)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stdout, "every line: same pass rate, final score and passes")
	code, _, errs = runCLI(t, "eval", quality, lower, "--dataset", ds, "--junit", filepath.Join(dir, "j.xml"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--junit and --report describe one workflow")
}

// The eval's HTML page: totals, a row per run linking to the run's own
// report page, every text escaped.
func TestEvalHTMLReport(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "s.yaml", "writer: [\"<script>alert(1)</script> draft\"]\neditor: [\"<img src=x onerror=alert(1)>\"]\n")
	ds := writeFile(t, dir, "ds.jsonl", `{"input": "<b>bold</b>", "assert": [{"type": "contains", "value": "<i>"}]}`+"\n")
	page := filepath.Join(dir, "eval.html")
	code, _, errs := runCLI(t, "eval", hello, "--dataset", ds, "--script", script, "--report", page, "--repeat", "2")
	assert.Equal(t, exitFailure, code, errs)
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	html := string(data)
	assert.Contains(t, html, `<span class="badge failed" id="status">failed</span>`)
	assert.Contains(t, html, `href="eval_runs/line-1-1.html"`)
	assert.Contains(t, html, `href="eval_runs/line-1-2.html"`)
	assert.Contains(t, html, `&lt;b&gt;bold&lt;/b&gt;`)
	assert.Contains(t, html, `&lt;img src=x onerror=alert(1)&gt;`)
	assert.Contains(t, html, `contains: answer does not contain &#34;&lt;i&gt;&#34;`)
	assert.NotContains(t, html, "<img src=x")
	assert.NotContains(t, html, "<b>bold")
	assert.Contains(t, html, "--bad:#c62828", "the run report's style")
	run, err := os.ReadFile(filepath.Join(dir, "eval_runs", "line-1-2.html"))
	require.NoError(t, err)
	assert.Contains(t, string(run), "&lt;script&gt;alert(1)&lt;/script&gt; draft", "each run's page is the run report")
	assert.NotContains(t, string(run), "<script>alert")
}

// Bad dataset lines name the file, the line and the field, in JSON's terms.
func TestEvalBadAssertionsNameLineAndField(t *testing.T) {
	dir := t.TempDir()
	ds := writeFile(t, dir, "bad.jsonl", strings.Join([]string{
		`{"input": "ok", "assert": [{"type": "contains", "value": "x"}]}`,
		`{"input": "x", "assert": [{"type": "containz", "value": "x"}]}`,
		`{"input": "x", "assert": [{"type": "contains"}]}`,
		`{"input": "x", "assert": [{"type": "passes", "value": "three"}]}`,
		`{"input": "x", "assert": {"type": "contains"}}`,
		`{"input": "x", "assert": [{"type": "similar", "value": "a", "threshold": 2}]}`,
		`{"input": "x", "assert": [{"type": "latency", "value": 5}]}`,
		`{"input": "x", "assert": [{"type": "llm-rubric", "value": "good"}]}`,
		`{"input": "x", "assert": [{"type": "json-schema", "value": {"type": 7}}]}`,
		`{"input": "x", "assert": [{"type": "contains", "value": "a", "treshold": 1}]}`,
		`["input", "x"]`,
		`{"input": "x", "name": 3}`,
		`{"input": "x", "assert": [{"type": "equals", "value": "a", "threshold": 0.5}]}`,
		`{"input": "x", "assert": [{"type": "regex", "value": "(a"}]}`,
		`{"input": 1,}`,
	}, "\n"))
	code, stdout, errs := runCLI(t, "eval", hello, "--dataset", ds, "--script", helloScript)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	for _, want := range []string{
		ds + `:2: assert[1]: unknown assertion type "containz"; did you mean "contains"? (known: contains, icontains,`,
		ds + `:3: assert[1].value: contains needs a text value, got nothing`,
		ds + `:4: assert[1].value: passes needs a whole number (the most allowed), got text`,
		ds + `:5: assert: a list of assertions, [{"type": "contains", "value": "..."}], not an object`,
		ds + `:6: assert[1].threshold: a number between 0 and 1, got a number`,
		ds + `:7: assert[1].value: latency needs a duration such as "2s", got a number`,
		ds + `:8: assert[1]: llm-rubric needs "judge": "AGENT_ID"`,
		ds + `:9: assert[1].value: `,
		ds + `:10: assert[1]: unknown key "treshold"; did you mean "threshold"?`,
		ds + `:11: not a dataset line: each line is one JSON object`,
		ds + `:12: name: needs text, got a number`,
		ds + `:13: assert[1].threshold: only for similar`,
		ds + `:14: assert[1].value: `,
		ds + `:15: not a dataset line: invalid character '}' looking for beginning of object key string`,
	} {
		assert.Contains(t, errs, want)
	}
	assert.NotContains(t, errs, ds+":1:")
	for _, goish := range []string{"Go struct", "main.", "float64", "json.RawMessage", "map[string]"} {
		assert.NotContains(t, errs, goish, "no Go types in errors")
	}
}

// The README's eval example runs as written, on the dataset in examples/.
func TestReadmeEvalExampleRuns(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go run \./cmd/cogloop (eval examples/\S+ .*)$`).FindStringSubmatch(string(src))
	require.NotNil(t, m, "README has a go run ./cmd/cogloop eval examples/... line")
	args := strings.Fields(m[1])
	dir := t.TempDir()
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "examples/"):
			args[i] = filepath.Join("..", "..", a)
		case i > 0 && (args[i-1] == "--out" || args[i-1] == "--junit" || args[i-1] == "--report"):
			args[i] = filepath.Join(dir, a) // an output file
		}
	}
	code, stdout, errs := runCLI(t, args...)
	require.Equal(t, exitOK, code, stdout+errs)
	assert.Equal(t, "100.0% (8 of 8 runs; need 90.0%)", tableRow(stdout, "pass rate"))
	for _, out := range []string{"results.jsonl", "eval.xml"} {
		_, err := os.Stat(filepath.Join(dir, out))
		assert.NoError(t, err, out)
	}
}
