package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/cogloop/cogloop/agents/spend"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

const hello = "../../examples/hello/workflow.yaml"
const helloScript = "../../examples/hello/replies.yaml"

func TestRunPrintsFinalResponse(t *testing.T) {
	code, out, errs := runCLI(t, "run", hello, "a haiku about loops", "--script", helloScript)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "Round and round we go,\neach pass a little wiser:\nthe loop learns its way.\n", out)
}

func TestFlagsBeforeOrAfterPositionals(t *testing.T) {
	code, out, errs := runCLI(t, "run", "--script", helloScript, hello, "topic")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "the loop learns its way.")
}

func TestRunJSONOutputIsOnlyJSON(t *testing.T) {
	code, out, errs := runCLI(t, "run", hello, "topic", "--json", "--script", helloScript)
	require.Equal(t, 0, code, errs)
	var doc struct {
		RunID   string                    `json:"run_id"`
		Output  string                    `json:"output"`
		Outputs map[string]map[string]any `json:"outputs"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	require.NoError(t, dec.Decode(&doc))
	_, err := dec.Token()
	assert.ErrorIs(t, err, io.EOF, "stdout holds one JSON document and nothing else")
	assert.NotEmpty(t, doc.RunID)
	assert.Contains(t, doc.Output, "the loop learns its way.")
	require.Contains(t, doc.Outputs, "writer")
	assert.Contains(t, doc.Outputs["writer"]["response"], "each pass a little wiser —")
	assert.Contains(t, doc.Outputs["editor"]["formatted_prompt"], "Tighten this draft")
}

func TestTraceWritesJSONLines(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, _, errs := runCLI(t, "run", hello, "topic", "--script", helloScript, "--trace", trace)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(trace)
	require.NoError(t, err)
	defer func() { _ = f.Close() }() // read-only
	var kinds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		kinds = append(kinds, e["kind"].(string))
		if e["kind"] == "agent.end" && e["agent"] == "writer" {
			assert.Contains(t, e["prompt"], "Write about: topic")
			// The writer's model, gpt-4o-mini, at the built-in prices.
			price, ok := spend.DefaultPricing().Price("gpt-4o-mini")
			require.True(t, ok)
			usage := e["usage"].(map[string]any)
			assert.InDelta(t, price.Cost(spend.Usage{PromptTokens: 12, CompletionTokens: 21}), usage["cost"], 1e-12)
			delete(usage, "cost")
			assert.Equal(t, map[string]any{"prompt_tokens": 12.0, "completion_tokens": 21.0}, usage)
		}
	}
	assert.Equal(t, []string{"run.start", "agent.start", "agent.end", "agent.start", "agent.end", "run.end"}, kinds)
}

func TestValidate(t *testing.T) {
	code, out, _ := runCLI(t, "validate", hello)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "ok")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("orchestrator: {id: w, agents: [a, b]}\nagents:\n  - {id: a, type: nope}\n  - {id: b, type: openai-answer, promt: x}\n"), 0o600))
	code, _, errs := runCLI(t, "validate", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "bad.yaml:3:19")
	assert.Contains(t, errs, `unknown type "nope"`)
	assert.Contains(t, errs, "bad.yaml:4:34")
	assert.Contains(t, errs, `unknown key "promt"`)
}

func TestUsageErrors(t *testing.T) {
	code, _, errs := runCLI(t)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "usage: cogloop <command>")
	code, _, errs = runCLI(t, "frobnicate")
	assert.Equal(t, 2, code)
	assert.Equal(t, "cogloop: unknown command \"frobnicate\"\nrun 'cogloop help'\n", errs)
	for _, tc := range []struct {
		args []string
		cmd  string
		msg  string
	}{
		{[]string{"run"}, "run", "run needs a workflow file"},
		{[]string{"run", hello, "a", "b"}, "run", "got 3 arguments"},
		{[]string{"run", hello, "--nope"}, "run", "flag provided but not defined: -nope"},
		{[]string{"run", hello, "x", "-v", "-q"}, "run", "-v and -q"},
		{[]string{"validate"}, "validate", "validate takes one workflow file"},
		{[]string{"version", "x"}, "version", "no arguments"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out)
		lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
		require.Len(t, lines, 2, "one line and the pointer to the help: %q", errs)
		assert.Contains(t, lines[0], "cogloop "+tc.cmd+": ")
		assert.Contains(t, lines[0], tc.msg)
		assert.Equal(t, "run 'cogloop "+tc.cmd+" --help'", lines[1])
	}
}

func TestScriptExhaustedIsARuntimeFailure(t *testing.T) {
	script := filepath.Join(t.TempDir(), "short.yaml")
	require.NoError(t, os.WriteFile(script, []byte("writer: [draft]\neditor: []\n"), 0o600))
	code, out, errs := runCLI(t, "run", hello, "topic", "--script", script)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errs, `"editor"`)
	assert.Contains(t, errs, "exhausted")
}

func TestJSONInput(t *testing.T) {
	wf := filepath.Join(t.TempDir(), "wf.yaml")
	require.NoError(t, os.WriteFile(wf, []byte("orchestrator: {id: w, agents: [a]}\nagents:\n  - id: a\n    type: scripted\n    prompt: '{{ input.topic }} x{{ input.n + 1 }}'\n    responses: [ok]\n"), 0o600))
	code, out, errs := runCLI(t, "run", wf, `{"topic": "tides", "n": 2}`, "--json-input", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"formatted_prompt": "tides x3"`)

	code, _, errs = runCLI(t, "run", wf, `{not json`, "--json-input")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "not valid JSON")
}

// The API key must never reach stdout, stderr or the trace, even when the
// provider echoes it back in an error body.
func TestSecretCanary(t *testing.T) {
	const canary = "sk-canary-7f3a9c2e5b1d"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+r.Header.Get("Authorization")+`","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", canary)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	code, out, errs := runCLI(t, "run", hello, "topic", "--trace", trace, "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "401", "the failure itself is reported")
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	for name, s := range map[string]string{"stdout": out, "stderr": errs, "trace": string(data)} {
		assert.NotContains(t, s, canary, name)
		assert.NotContains(t, s, "canary-7f3a", name)
	}
}
