package orchestrator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/llm"
)

// The orchestrator's max_reply_bytes bounds the replies of the agents that set
// none, in nested workflows too; an agent's own max_reply_bytes wins.
func TestOrchestratorMaxReplyBytes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		agenttest.WriteChatReply(w, strings.Repeat("x", 3000), 1, 1)
	}))
	defer srv.Close()
	r := agenttest.Registry()
	llm.RegisterWith(r, llm.Options{Getenv: func(string) string { return "" }})
	agent := func(id, extra string) string {
		return "  - {id: " + id + ", type: llm, provider: openai_compatible, model: m, model_url: " + srv.URL + ", prompt: hi, retry: {count: 0}" + extra + "}\n"
	}
	w, _, err := Parse([]byte("orchestrator: {id: w, agents: [inherits, own], max_reply_bytes: 2048}\nagents:\n"+
		agent("inherits", "")+agent("own", ", max_reply_bytes: 8192")), "wf.yaml", r)
	require.NoError(t, err)
	out, err := w.Run(context.Background(), agents.Input{Value: "x", Run: &agents.Run{ID: "r"}})
	require.NoError(t, err)
	inherits, _ := out.Children.Get("inherits")
	require.True(t, inherits.Failed())
	assert.Contains(t, inherits.Err, `max_reply_bytes (2 KiB = 2048 bytes) of agent "inherits"`)
	own, _ := out.Children.Get("own")
	assert.False(t, own.Failed(), "its own limit, 8 KiB, holds the 3,000-byte reply")

	_, _, err = Parse([]byte("orchestrator: {id: w, agents: [a], max_reply_bytes: 0}\nagents:\n"+agent("a", "")), "wf.yaml", r)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "max_reply_bytes")
}
