package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/mcp"
)

// workflow is a file whose asker may call the tools of the server given.
func workflow(server, tools string) string {
	return fmt.Sprintf(`
orchestrator:
  id: mcp
  agents: [asker]
  mcp_servers:
    t: %s
agents:
  - id: asker
    type: openai-answer
    model: gpt-4o-mini
    prompt: "Answer: {{ input }}"
    tools: %s
`, server, tools)
}

// stdio is the server entry of the test binary as a stdio server in mode.
func stdio(t *testing.T, mode string, extra string) string {
	t.Helper()
	t.Setenv("COGLOOP_MCP_SERVER", mode)
	return fmt.Sprintf("{command: [%q], env: [COGLOOP_MCP_SERVER, COGLOOP_MCP_PIDS]%s}", os.Args[0], extra)
}

// run runs wf with the scripted replies of script and returns the events.
func run(t *testing.T, wf, script string) (*cogloop.Result, []event.Event, error) {
	t.Helper()
	return runWith(t, wf, script)
}

// results are the tool.result events by call id.
func results(evs []event.Event) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.Kind == event.ToolResult {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Data["id"].(string) < out[j].Data["id"].(string) })
	return out
}

// alive reports whether pid is a live process (a zombie is not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// A stdio server's tools run through the tool loop: text, structured
// content, images and resources summarised, isError and bad arguments told
// to the model; the server and what it started are gone after the run.
func TestStdioServerToolsInTheToolLoop(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("COGLOOP_MCP_PIDS", pids)
	wf := workflow(stdio(t, "serve", ""), "[t.echo, t.add, t.picture, t.fail, t.weather]")
	res, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.echo, args: {message: hi}}, {tool: t.add, args: {a: 2, b: 3}}]
  - tool_calls: [{tool: t.picture, args: {}}, {tool: t.fail, args: {}}, {tool: t.add, args: {a: two}}, {tool: t.weather}]
  - "done"
`)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())
	rs := results(evs)
	require.Len(t, rs, 6)
	assert.Equal(t, "echo: hi", rs[0].Response)
	assert.Equal(t, `{"sum":5}`, rs[1].Response, "the text carries the structured content: once is enough")
	assert.Equal(t, "[image: image/png, 5 bytes]\n[resource: file:///notes.txt (text/plain)]\na note", rs[2].Response)
	assert.Contains(t, rs[3].Error, "t.fail: disk full")
	assert.Contains(t, rs[4].Error, "do not match the tool's input schema")
	assert.JSONEq(t, `{"response": "sunny", "structured_content": {"temp": 21}}`, rs[5].Response)

	var got [2]int
	b, err := os.ReadFile(pids)
	require.NoError(t, err)
	_, err = fmt.Sscan(string(b), &got[0], &got[1])
	require.NoError(t, err)
	for _, pid := range got {
		assert.False(t, alive(pid), "process %d (the server %d or its child %d) outlived the run", pid, got[0], got[1])
	}
}

// A streamable HTTP server gets its headers, read from the environment;
// their values reach no event.
func TestHTTPServerHeadersFromTheEnvironment(t *testing.T) {
	srv := httptest.NewServer(httpServer())
	defer srv.Close()
	t.Setenv("MCP_TEST_TOKEN", "s3cr3t-token-value")
	wf := workflow(fmt.Sprintf(`{url: %q, headers: {Authorization: "Bearer ${MCP_TEST_TOKEN}"}}`, srv.URL), "[t.*]")
	_, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.whoami, args: {}}]
  - "done"
`)
	require.NoError(t, err)
	rs := results(evs)
	require.Len(t, rs, 1)
	assert.Equal(t, "bearer true, 25 bytes", rs[0].Response)
	for _, e := range evs {
		assert.NotContains(t, fmt.Sprintf("%+v", e), "s3cr3t")
	}
}

// A tool that does not answer within call_timeout is a tool error for the
// model, naming the server, the tool and the key to raise.
func TestCallTimeoutIsAToolError(t *testing.T) {
	wf := workflow(stdio(t, "serve", ", call_timeout: 50ms"), "[t.stall]")
	_, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.stall, args: {}}]
  - "done"
`)
	require.NoError(t, err)
	rs := results(evs)
	require.Len(t, rs, 1)
	assert.Contains(t, rs[0].Error, `mcp server "t"`)
	assert.Contains(t, rs[0].Error, "tool stall did not answer within its call_timeout of 50ms")
}

// Servers that cannot serve fail the run before any agent, naming the
// server and what to check; every wait is bounded.
func TestServerFaultsFailTheRun(t *testing.T) {
	addr := nettest.ClosedAddr(t)
	cases := []struct {
		name, mode, server, tools string
		want                      []string
	}{
		{"missing tool", "serve", stdio(t, "", ""), "[t.eco]", []string{"tools names t.eco", "did you mean t.echo?", "its tools: "}},
		{"command not found", "", `{command: [no-such-mcp-server-xyz]}`, "[t.echo]", []string{`mcp server "t"`, "did not start", "check that no-such-mcp-server-xyz is installed"}},
		{"exits", "exit", stdio(t, "", ""), "[t.echo]", []string{"did not initialize", "cannot open the database"}},
		{"malformed", "garbage", stdio(t, "", ", start_timeout: 2s"), "[t.echo]", []string{`mcp server "t"`, "did not initialize", "wrote garbage"}},
		{"hangs", "hang", stdio(t, "", ", start_timeout: 300ms"), "[t.echo]", []string{"did not initialize within its start_timeout of 300ms"}},
		{"unreachable", "", fmt.Sprintf(`{url: "http://%s/mcp"}`, addr), "[t.echo]", []string{"did not initialize", "check that the server runs and the url is its MCP endpoint"}},
		{"unset header variable", "", `{url: "http://127.0.0.1:1/mcp", headers: {X-Key: "${MCP_TEST_UNSET_VAR}"}}`, "[t.echo]", []string{"header X-Key names the environment variable MCP_TEST_UNSET_VAR, which is not set"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("COGLOOP_MCP_SERVER", tc.mode)
			_, evs, err := run(t, workflow(tc.server, tc.tools), "asker: [done]")
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			for _, e := range evs {
				assert.NotEqual(t, event.AgentStart, e.Kind, "no agent runs")
			}
		})
	}
}

// Bad mcp_servers entries and unknown servers are load errors with positions.
func TestLoadProblems(t *testing.T) {
	cases := []struct{ server, tools, want string }{
		{`{command: [x], url: "http://h/mcp"}`, "[t.a]", "has both command and url"},
		{`{}`, "[t.a]", "needs command: [argv] (a stdio server) or url"},
		{`{url: "ftp://h"}`, "[t.a]", "must start with http:// or https://"},
		{`{url: "http://h/mcp", env: [HOME]}`, "[t.a]", "a url server reads ${NAME} in its headers"},
		{`{command: [x], env: ["not a name"]}`, "[t.a]", "not an environment variable name"},
		{`{command: [x]}`, "[u.a]", `tools names "u.a", which no agent defines`},
		{`{command: [x], timeout: 3s}`, "[t.a]", "timeout"},
		{`{command: [x], share: always}`, "[t.a]", `share is run (a server per run) or process (one per process, shared by its runs), not "always"`},
		{`{url: "http://h/mcp", share: process}`, "[t.a]", "a url server is contacted by each run"},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			_, err := cogloop.Parse([]byte(workflow(tc.server, tc.tools)), "mcp.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "mcp.yaml:")
		})
	}
}

// A server that exits in the middle of a call: the model is told, naming
// the server, the tool and the server's last words; later calls fail the
// same way, the run ends, and no process of the server is left.
func TestServerExitsMidRun(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("COGLOOP_MCP_PIDS", pids)
	wf := workflow(stdio(t, "serve", ""), "[t.die, t.echo]")
	res, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.die, args: {}}]
  - tool_calls: [{tool: t.echo, args: {message: "still there"}}]
  - "the server is gone"
`)
	require.NoError(t, err)
	assert.Equal(t, "the server is gone", res.Text())
	rs := results(evs)
	require.Len(t, rs, 2)
	assert.Contains(t, rs[0].Error, `mcp server "t"`)
	assert.Contains(t, rs[0].Error, "tool die")
	assert.Contains(t, rs[0].Error, "out of memory in die")
	assert.Contains(t, rs[1].Error, "tool echo")
	var got [2]int
	b, err := os.ReadFile(pids)
	require.NoError(t, err)
	_, err = fmt.Sscan(string(b), &got[0], &got[1])
	require.NoError(t, err)
	for _, pid := range got {
		assert.False(t, alive(pid), "process %d outlived the run", pid)
	}
}

// A script's mcp:NAME entry stands in for the whole server: the command is
// never started (it does not exist), the tools answer from their replies
// through the same client path, an error reply and running out of replies
// are tool errors for the model, and a stand-in for a server the workflow
// does not declare fails the run with did-you-mean.
func TestScriptStandsInForAServer(t *testing.T) {
	wf := workflow(`{command: [no-such-mcp-server-xyz]}`, "[t.read, t.*]")
	res, evs, err := run(t, wf, `
asker:
  - tool_calls: [{tool: t.read, args: {path: a.txt}}, {tool: t.write, args: {}}]
  - tool_calls: [{tool: t.read, args: {path: b.txt}}]
  - tool_calls: [{tool: t.read, args: {path: c.txt}}]
  - "done"
"mcp:t":
  read: ["contents of a", {error: "ENOENT: b.txt"}]
  write: [written]
`)
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())
	rs := results(evs)
	require.Len(t, rs, 4)
	assert.Equal(t, "contents of a", rs[0].Response)
	assert.Equal(t, "written", rs[1].Response)
	assert.Contains(t, rs[2].Error, "ENOENT: b.txt")
	assert.Contains(t, rs[3].Error, "called more times than it has scripted replies")

	_, _, err = run(t, wf, "asker: [done]\n\"mcp:u\": {read: [x]}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `the script stands in for mcp server "u", which the workflow does not declare; did you mean "t"?`)

	_, _, err = run(t, workflow(`{command: [no-such-mcp-server-xyz]}`, "[t.reed]"), "asker: [done]\n\"mcp:t\": {read: [x]}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did you mean t.read?")
}

// A workflow_ref file may declare mcp_servers: they join the run's servers
// (its agents name them as server.tool); a name declared twice is a load
// error naming both places.
func TestServersOfAWorkflowRefFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("COGLOOP_MCP_SERVER", "serve")
	server := fmt.Sprintf("{command: [%q], env: [COGLOOP_MCP_SERVER]}", os.Args[0])
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	sub := func(name string) string {
		return fmt.Sprintf(`orchestrator:
  id: sub
  agents: [asker]
  mcp_servers:
    %s: %s
agents:
  - {id: asker, type: openai-answer, model: gpt-4o-mini, prompt: "{{ input }}", tools: [%s.echo]}
`, name, server, name)
	}
	write("sub.yaml", sub("u"))
	write("clash.yaml", sub("t"))
	top := func(ref string) string {
		return fmt.Sprintf(`orchestrator:
  id: top
  agents: [l]
  mcp_servers:
    t: %s
agents:
  - {id: l, type: loop, max_loops: 1, workflow_ref: %s}
`, server, ref)
	}
	wf, err := cogloop.Load(write("top.yaml", top("sub.yaml")))
	require.NoError(t, err)
	assert.Equal(t, []string{"t", "u"}, wf.MCPServers())
	s, err := scripted.Parse([]byte("asker:\n  - tool_calls: [{tool: u.echo, args: {message: from the sub-workflow}}]\n  - done\n"), "s.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	_, err = wf.Run(context.Background(), "go", cogloop.WithModels(s), cogloop.WithObserver(rec.Observe))
	require.NoError(t, err)
	rs := results(rec.Events())
	require.Len(t, rs, 1)
	assert.Equal(t, "echo: from the sub-workflow", rs[0].Response)

	_, err = cogloop.Load(write("top2.yaml", top("clash.yaml")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `mcp server "t" is declared twice, at `+filepath.Join(dir, "top2.yaml")+":5:5 and at "+filepath.Join(dir, "clash.yaml")+":5:5")
}

// share: process keeps a stdio server for every run of the process: the
// second run uses the first run's server, which outlives both runs until
// CloseShared kills it with its process group; a server that died is
// started again by the next run.
func TestShareProcess(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("COGLOOP_MCP_PIDS", pids)
	t.Cleanup(mcp.CloseShared)
	wf := workflow(stdio(t, "serve", ", share: process"), "[t.echo, t.die]")
	serverPids := func() [2]int {
		var got [2]int
		b, err := os.ReadFile(pids)
		require.NoError(t, err)
		_, err = fmt.Sscan(string(b), &got[0], &got[1])
		require.NoError(t, err)
		return got
	}
	call := func(tool string) event.Event {
		args := "{message: hi}"
		if tool == "die" {
			args = "{}"
		}
		_, evs, err := run(t, wf, fmt.Sprintf("asker:\n  - tool_calls: [{tool: t.%s, args: %s}]\n  - done\n", tool, args))
		require.NoError(t, err)
		rs := results(evs)
		require.Len(t, rs, 1)
		return rs[0]
	}
	assert.Equal(t, "echo: hi", call("echo").Response)
	first := serverPids()
	assert.True(t, alive(first[0]), "the shared server outlives the run")
	assert.Equal(t, "echo: hi", call("echo").Response)
	assert.Equal(t, first, serverPids(), "the second run used the first run's server")

	assert.Contains(t, call("die").Error, "out of memory in die")
	assert.Equal(t, "echo: hi", call("echo").Response, "a run after the server died starts it again")
	second := serverPids()
	assert.NotEqual(t, first, second)
	assert.False(t, alive(first[0]))

	mcp.CloseShared()
	for _, pid := range append(first[:], second[:]...) {
		assert.False(t, alive(pid), "process %d outlived CloseShared", pid)
	}
}
