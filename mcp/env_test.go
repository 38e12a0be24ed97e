package mcp_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
)

// unset removes name from the process environment for the test.
func unset(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	require.NoError(t, os.Unsetenv(name))
}

// runWith runs wf loaded with opts on the scripted replies of script.
func runWith(t *testing.T, wf, script string, opts ...cogloop.LoadOption) (*cogloop.Result, []event.Event, error) {
	t.Helper()
	w, err := cogloop.Parse([]byte(wf), "mcp.yaml", opts...)
	require.NoError(t, err)
	s, err := scripted.Parse([]byte(script), "s.yaml")
	require.NoError(t, err)
	rec := &agenttest.Recorder{}
	res, err := w.Run(context.Background(), "go", cogloop.WithModels(s), cogloop.WithObserver(rec.Observe))
	return res, rec.Events(), err
}

// mapEnv is a WithEnv lookup over m.
func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// Under WithEnv a stdio server is found on the lookup's PATH and gets the
// lookup's values of its env: names; the process environment has neither.
func TestStdioServerEnvFromWithEnv(t *testing.T) {
	unset(t, "COGLOOP_MCP_SERVER")
	bin := t.TempDir()
	require.NoError(t, os.Symlink(os.Args[0], filepath.Join(bin, "cogloop-mcp-test-server")))
	wf := workflow(`{command: [cogloop-mcp-test-server], env: [COGLOOP_MCP_SERVER]}`, "[t.echo]")
	script := "asker:\n  - tool_calls: [{tool: t.echo, args: {message: hi}}]\n  - done\n"

	res, evs, err := runWith(t, wf, script, cogloop.WithEnv(mapEnv(map[string]string{"PATH": bin, "COGLOOP_MCP_SERVER": "serve"})))
	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())
	rs := results(evs)
	require.Len(t, rs, 1)
	assert.Equal(t, "echo: hi", rs[0].Response)

	// Without WithEnv the process's PATH has no such program.
	_, _, err = runWith(t, wf, script)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `mcp server "t" (command cogloop-mcp-test-server) did not start`)

	// A lookup whose PATH lacks it: the error says which PATH was searched.
	_, _, err = runWith(t, wf, script, cogloop.WithEnv(mapEnv(map[string]string{"PATH": t.TempDir()})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in the PATH of the environment WithEnv gives (1 directories)")
}

// Under WithEnv a header's ${NAME} is read through the lookup: a value only
// the lookup has reaches the server, and a variable only the process has is
// unset.
func TestHTTPServerHeadersFromWithEnv(t *testing.T) {
	srv := httptest.NewServer(httpServer())
	defer srv.Close()
	unset(t, "MCP_TEST_TOKEN")
	wf := workflow(fmt.Sprintf(`{url: %q, headers: {Authorization: "Bearer ${MCP_TEST_TOKEN}"}}`, srv.URL), "[t.*]")
	script := "asker:\n  - tool_calls: [{tool: t.whoami, args: {}}]\n  - done\n"

	_, evs, err := runWith(t, wf, script, cogloop.WithEnv(mapEnv(map[string]string{"MCP_TEST_TOKEN": "s3cr3t-token-value"})))
	require.NoError(t, err)
	rs := results(evs)
	require.Len(t, rs, 1)
	assert.Equal(t, "bearer true, 25 bytes", rs[0].Response)

	t.Setenv("MCP_TEST_TOKEN", "process-value")
	_, _, err = runWith(t, wf, script, cogloop.WithEnv(mapEnv(nil)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "header Authorization names the environment variable MCP_TEST_TOKEN, which is not set")
}
