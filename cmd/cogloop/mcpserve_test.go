package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/internal/clibin"
)

const serveData = "testdata/mcpserve/"

// serveArgs are the arguments of mcp serve over the test workflows,
// answered by their script, records in a temporary directory.
func serveArgs(t *testing.T, extra ...string) []string {
	t.Helper()
	return append([]string{"mcp", "serve", serveData + "improve.yaml", serveData + "slow.yaml", serveData + "shout.yaml",
		"--script", serveData + "replies.yaml", "--record-dir", t.TempDir()}, extra...)
}

// progressLog collects the progress notifications a client receives.
type progressLog chan *sdk.ProgressNotificationParams

func newClient(log progressLog) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			log <- req.Params
		}})
}

// The server over stdio, driven by the go-sdk client: the tools with their
// schemas, a call with progress and its structured result, a bad call, a
// canceled call (the run is canceled, the server goes on), and the server
// exiting 0 when the client closes stdin.
func TestMCPServeStdio(t *testing.T) {
	cmd := exec.Command(clibin.Path(t), serveArgs(t)...)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	log := make(progressLog, 64)
	ctx := context.Background()
	cs, err := newClient(log).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	p := newProc(cmd, errPipe)
	t.Cleanup(func() { _ = cs.Close() })
	checkServedTools(t, cs)
	checkImproveCall(t, cs, log)

	// A call against the input schema is a tool error naming the workflow.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "improve", Arguments: map[string]any{"audience": "x"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, text(res), "workflow improve: the arguments do not match the tool's input schema")
	assert.Contains(t, text(res), "text")

	// Canceled in its second pass (a scripted reply that waits an hour):
	// the run is canceled, and the server answers the next call.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "slow", Arguments: map[string]any{"input": "x"},
			Meta: sdk.Meta{"progressToken": "slow-1"}})
		done <- err
	}()
	first := <-log
	assert.Equal(t, "slow-1", first.ProgressToken)
	assert.Contains(t, first.Message, "loop slow_loop: pass 1 of 3, score 0.20")
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	p.waitLine(t, "slow: run ", " failed: ", "context canceled")
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "shout", Arguments: map[string]any{"input": "hi"}})
	require.NoError(t, err)
	assert.Equal(t, "HELLO", text(res))

	require.NoError(t, cs.Close())
	require.NotNil(t, cmd.ProcessState)
	assert.Equal(t, 0, cmd.ProcessState.ExitCode(), "the server exits 0 when its client closes stdin; stderr:\n%s", p.stderr())
}

func checkServedTools(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	tools := map[string]*sdk.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	require.Len(t, tools, 3)
	improve := tools["improve"]
	require.NotNil(t, improve)
	assert.Equal(t, "Improves a text until a judge scores it 0.85 or more (at most 4 passes).", improve.Description)
	assert.JSONEq(t, `{"type": "object", "required": ["text"], "properties": {
		"text": {"type": "string", "description": "the text to improve"},
		"audience": {"type": "string", "description": "who will read it", "default": "a child"}}}`, jsonOf(t, improve.InputSchema))
	assert.JSONEq(t, `{"type": "object", "required": ["input"], "properties": {"input": {"type": "string", "description": "the workflow's input"}}}`,
		jsonOf(t, tools["shout"].InputSchema))
	assert.Contains(t, tools["shout"].Description, `workflow "shout"`)
	assert.Contains(t, jsonOf(t, improve.OutputSchema), `"loops_completed"`)
}

// checkImproveCall calls improve with a progress token: a notification per
// pass and one at the loop's end, then the answer and the structured result.
func checkImproveCall(t *testing.T, cs *sdk.ClientSession, log progressLog) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "improve",
		Arguments: map[string]any{"text": "explain recursion"}, Meta: sdk.Meta{"progressToken": 7}})
	require.NoError(t, err)
	require.False(t, res.IsError, text(res))
	assert.Equal(t, "Recursion is like Russian dolls: each holds a smaller one, until the tiniest.", text(res))
	st := res.StructuredContent.(map[string]any)
	assert.Equal(t, "ok", st["status"])
	assert.Regexp(t, regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{16}$`), st["run_id"])
	assert.Equal(t, []any{map[string]any{"loop": "improve_loop", "loops_completed": 2.0, "final_score": 0.9, "stop_reason": "threshold"}}, st["loops"])
	var msgs []string
	for range 3 {
		p := <-log
		assert.EqualValues(t, 7, p.ProgressToken)
		assert.EqualValues(t, len(msgs)+1, p.Progress, "progress grows with each notification")
		msgs = append(msgs, p.Message)
	}
	assert.Equal(t, []string{"loop improve_loop: pass 1 of 4, score 0.40", "loop improve_loop: pass 2 of 4, score 0.90",
		"loop improve_loop: stopped (threshold) after 2 passes, score 0.90"}, msgs)
}

// The server over streamable HTTP: with a token, a request without it is
// refused (401) and one with it is served; without a token, on loopback,
// anyone local is served; off loopback a token is required.
func TestMCPServeHTTP(t *testing.T) {
	t.Run("token", func(t *testing.T) {
		url, stop := startHTTPServe(t, "--token", "s3cret")
		_, err := newClient(nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Unauthorized")
		log := make(progressLog, 64)
		cs, err := newClient(log).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearer("s3cret")}}, nil)
		require.NoError(t, err)
		checkImproveCall(t, cs, log)
		require.NoError(t, cs.Close())
		assert.Equal(t, exitSIGTERM, stop(), "SIGTERM ends the server with 143")
	})
	t.Run("no token on loopback", func(t *testing.T) {
		url, _ := startHTTPServe(t)
		cs, err := newClient(nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
		require.NoError(t, err)
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shout", Arguments: map[string]any{"input": "hi"}})
		require.NoError(t, err)
		assert.Equal(t, "HELLO", text(res))
		require.NoError(t, cs.Close())
	})
	t.Run("off loopback", func(t *testing.T) {
		t.Setenv(envMCPToken, "")
		code, _, errs := runCLI(t, "mcp", "serve", serveData+"shout.yaml", "--http", "0.0.0.0:0")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, `--http "0.0.0.0:0" listens beyond loopback: give --token T`)
		code, _, errs = runCLI(t, "mcp", "serve", serveData+"shout.yaml", "--token", "x")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "--token protects --http")
	})
}

// startHTTPServe starts mcp serve --http on a free loopback port and returns
// its endpoint and a stop that sends SIGTERM and returns the exit code.
func startHTTPServe(t *testing.T, extra ...string) (string, func() int) {
	t.Helper()
	p := start(t, nil, serveArgs(t, append([]string{"--http", "127.0.0.1:0"}, extra...)...)...)
	p.waitLine(t, "cogloop mcp serve: 3 tools at http://127.0.0.1:")
	line := p.stderr()
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(line)
	require.NotEmpty(t, url, line)
	return url, func() int {
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
		_ = p.cmd.Wait()
		return p.cmd.ProcessState.ExitCode()
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// The records of served calls are run records like cogloop run's.
func TestMCPServeWritesRecords(t *testing.T) {
	dir := t.TempDir()
	args := append(slices.Clone(serveArgs(t)[:7]), "--record-dir", dir)
	cmd := exec.Command(clibin.Path(t), args...)
	cs, err := newClient(nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "shout", Arguments: map[string]any{"input": "hi"}})
	require.NoError(t, err)
	require.NoError(t, cs.Close())
	id := res.StructuredContent.(map[string]any)["run_id"].(string)
	b, err := os.ReadFile(filepath.Join(dir, id+".jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"kind":"run.end"`)
	assert.Contains(t, string(b), `"status":"ok"`)
}

// serveClientScript is the TypeScript client's script, and node: a missing
// node or @modelcontextprotocol/sdk skips the test, and fails it under
// CI=true (.ci/run installs both).
func serveClientScript(t *testing.T) (node, script string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: run npm ci in mcp/testdata/node (.ci/run does)", what)
		}
		t.Skipf("%s: run npm ci in mcp/testdata/node", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH")
	}
	dir, err := filepath.Abs("../../mcp/testdata/node")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("@modelcontextprotocol/sdk is not installed")
	}
	return node, filepath.Join(dir, "serve_client.mjs")
}

// tsRun is what serve_client.mjs saw.
type tsRun struct {
	Tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	} `json:"tools"`
	Improve   tsResult `json:"improve"`
	Progress  struct{ Improve, Slow []map[string]any }
	Slow      *tsResult `json:"slow"`
	SlowError string    `json:"slowError"`
	After     tsResult  `json:"after"`
	ServerPid int       `json:"serverPid"`
}

type tsResult struct {
	Content           []map[string]any `json:"content"`
	StructuredContent map[string]any   `json:"structuredContent"`
	IsError           bool             `json:"isError"`
}

// The official TypeScript client (@modelcontextprotocol/sdk) against mcp
// serve, over stdio (it starts the server) and streamable HTTP with a token:
// list the tools, call one and receive its progress, cancel one, call again.
func TestMCPServeTypeScriptClient(t *testing.T) {
	node, script := serveClientScript(t)
	check := func(t *testing.T, args ...string) tsRun {
		t.Helper()
		cmd := exec.Command(node, append([]string{script}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "node %s: stderr:\n%s", script, stderr.String())
		var got tsRun
		require.NoError(t, json.Unmarshal(out, &got), string(out))
		var names []string
		for _, tl := range got.Tools {
			names = append(names, tl.Name)
		}
		assert.ElementsMatch(t, []string{"improve", "slow", "shout"}, names)
		assert.Equal(t, []any{"text"}, got.Tools[0].InputSchema["required"])
		require.False(t, got.Improve.IsError, "%v", got.Improve.Content)
		assert.Equal(t, "Recursion is like Russian dolls: each holds a smaller one, until the tiniest.", got.Improve.Content[0]["text"])
		assert.Equal(t, "ok", got.Improve.StructuredContent["status"])
		assert.Equal(t, []any{map[string]any{"loop": "improve_loop", "loops_completed": 2.0, "final_score": 0.9, "stop_reason": "threshold"}},
			got.Improve.StructuredContent["loops"])
		require.Len(t, got.Progress.Improve, 3)
		first := got.Progress.Improve[0]
		assert.NotEmpty(t, first["progressToken"])
		delete(first, "progressToken")
		assert.Equal(t, map[string]any{"progress": 1.0, "message": "loop improve_loop: pass 1 of 4, score 0.40",
			"_meta": map[string]any{"loop": "improve_loop", "pass": 1.0, "score": 0.4}}, first)
		assert.Equal(t, "loop improve_loop: stopped (threshold) after 2 passes, score 0.90", got.Progress.Improve[2]["message"])
		assert.Nil(t, got.Slow, "the canceled call has no result")
		assert.Contains(t, got.SlowError, "enough")
		require.Len(t, got.Progress.Slow, 1, "the run was canceled in its second pass")
		assert.Equal(t, "loop slow_loop: pass 1 of 3, score 0.20", got.Progress.Slow[0]["message"])
		assert.Equal(t, "HELLO", got.After.Content[0]["text"])
		return got
	}
	t.Run("stdio", func(t *testing.T) {
		got := check(t, append([]string{"stdio", clibin.Path(t)}, serveArgs(t)...)...)
		require.Positive(t, got.ServerPid)
		assert.ErrorIs(t, syscall.Kill(got.ServerPid, 0), syscall.ESRCH, "the server process is gone after the client closed")
	})
	t.Run("http", func(t *testing.T) {
		url, stop := startHTTPServe(t, "--token", "ts-token")
		check(t, "http", url, "ts-token")
		assert.Equal(t, exitSIGTERM, stop())
	})
}

// The example runs offline: its script stands in for the filesystem server
// (no Node); a stand-in for a server the workflow lacks is a script error
// with its position.
func TestScriptStandInExample(t *testing.T) {
	const ex = "../../examples/mcp/"
	code, out, errs := runCLI(t, "run", ex+"workflow.yaml", "docs/notes.md", "--script", ex+"replies.yaml", "--no-record")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "the install section repeats itself twice")
	assert.Contains(t, errs, "stopped: threshold")

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("reviewer: [a]\njudge: [b]\n\"mcp:fz\": {read_text_file: [x]}\n"), 0o600))
	code, _, errs = runCLI(t, "run", ex+"workflow.yaml", "x", "--script", bad, "--no-record")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, `bad.yaml:3:1: script: mcp:fz stands in for an mcp server that workflow "review_file" does not declare; did you mean mcp:fs?`)
}

// markedProcesses are the pids of live processes whose environment holds
// marker (this user's; a zombie counts as gone).
func markedProcesses(t *testing.T, marker string) []int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	var out []int
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !strings.Contains(string(env), marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if _, rest, _ := strings.Cut(string(stat), ") "); err != nil || strings.HasPrefix(rest, "Z") {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(filepath.Base(d), &pid); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// A served workflow whose MCP server (the npm reference server) has
// share: process: the calls share one server process, and when the client
// closes, mcp serve exits and no process it started is left.
func TestMCPServeSharedServerDiesWithIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	node, script := serveClientScript(t)
	js := filepath.Join(filepath.Dir(script), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	dir := t.TempDir()
	wf := filepath.Join(dir, "echoer.yaml")
	require.NoError(t, os.WriteFile(wf, []byte(fmt.Sprintf(`orchestrator:
  id: echoer
  agents: [asker]
  mcp_servers:
    t: {command: [%q, %q, stdio], env: [COGLOOP_TEST_MARKER], share: process}
agents:
  - {id: asker, type: openai-answer, model: gpt-4o-mini, prompt: "{{ input }}", tools: [t.echo]}
`, node, js)), 0o600))
	replies := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(replies, []byte("asker:\n  - tool_calls: [{tool: t.echo, args: {message: hi}}]\n  - done\n"), 0o600))
	marker := fmt.Sprintf("cogloop-serve-test-%d", os.Getpid())
	cmd := exec.Command(clibin.Path(t), "mcp", "serve", wf, "--script", replies, "--no-record")
	cmd.Env = append(os.Environ(), "COGLOOP_TEST_MARKER="+marker)
	cs, err := newClient(nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	var servers [][]int
	for range 2 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "echoer", Arguments: map[string]any{"input": "go"}})
		require.NoError(t, err)
		require.False(t, res.IsError, text(res))
		assert.Equal(t, "done", text(res))
		servers = append(servers, slices.DeleteFunc(markedProcesses(t, marker), func(pid int) bool { return pid == cmd.Process.Pid }))
	}
	require.NotEmpty(t, servers[0], "the shared server runs between calls")
	assert.Equal(t, servers[0], servers[1], "the second call used the first call's server")
	require.NoError(t, cs.Close())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	assert.Empty(t, markedProcesses(t, marker), "no process of the shared server outlives mcp serve")
}
