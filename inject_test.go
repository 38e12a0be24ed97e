package cogloop_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
)

// openAIServer answers chat completions with whether it was sent the key
// injected-key, and the model asked for (a key in a reply would be scrubbed).
func openAIServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := agenttest.ReadChatRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key := "wrong-key"
		if r.Header.Get("Authorization") == "Bearer injected-key" {
			key = "right-key"
		}
		agenttest.WriteChatReply(w, key+" "+req.Model, 3, 2)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// The key and base URL come from WithEnv, not the process environment,
// and the call goes through WithHTTPClient's client.
func TestLoadOptionsInjectEnvAndHTTPClient(t *testing.T) {
	srv := openAIServer(t)
	t.Setenv("OPENAI_API_KEY", "process-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	tr := &countingTransport{}
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: inj, agents: [a]}
agents:
  - {id: a, type: openai-answer, model: gpt-x, prompt: hi}
`), "inj.yaml",
		cogloop.WithEnv(mapEnv(map[string]string{"OPENAI_API_KEY": "injected-key", "OPENAI_BASE_URL": srv.URL + "/v1"})),
		cogloop.WithHTTPClient(&http.Client{Transport: tr}))
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, "right-key gpt-x", res.Text())
	assert.Equal(t, int32(1), tr.n.Load())
}

// A Go provider answers the agents that name it; WithModels may leave an
// agent to its configured provider by returning no model for it.
func TestGoProviderAndPartialModels(t *testing.T) {
	house := agents.ModelFunc(func(ctx context.Context, req agents.Request) (agents.Reply, error) {
		return agents.Reply{Text: "house " + req.Model + ": " + req.Prompt}, nil
	})
	src := `orchestrator: {id: prov, agents: [a, b]}
agents:
  - {id: a, type: llm, provider: house, model: m1, prompt: "first"}
  - {id: b, type: llm, provider: house, model: m2, prompt: "second"}
`
	wf, err := cogloop.Parse([]byte(src), "prov.yaml", cogloop.WithProvider("house", house))
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Equal(t, "house m1: first", agenttest.Output(t, res.Outputs, "a").Response)
	assert.Equal(t, "house m2: second", res.Text())

	onlyA := modelSourceFunc(func(id string) (agents.Model, error) {
		if id != "a" {
			return nil, nil
		}
		return agents.ModelFunc(func(context.Context, agents.Request) (agents.Reply, error) {
			return agents.Reply{Text: "fake"}, nil
		}), nil
	})
	res, err = wf.Run(context.Background(), "x", cogloop.WithModels(onlyA))
	require.NoError(t, err)
	assert.Equal(t, "fake", agenttest.Output(t, res.Outputs, "a").Response)
	assert.Equal(t, "house m2: second", res.Text(), "b keeps its provider")

	_, err = cogloop.Parse([]byte(src), "prov.yaml")
	require.ErrorContains(t, err, "prov.yaml:3:", "without the provider the name is unknown")
	_, err = cogloop.Parse([]byte(src), "prov.yaml", cogloop.WithProvider("openai", house))
	require.ErrorContains(t, err, `the Go provider "openai" has the name of a built-in provider`)
	_, err = cogloop.Parse([]byte(src), "prov.yaml", cogloop.WithProvider("house", house), cogloop.WithRegistry(cogloop.NewRegistry()))
	require.ErrorContains(t, err, "with WithRegistry")
}

type modelSourceFunc func(id string) (agents.Model, error)

func (f modelSourceFunc) ModelFor(id string) (agents.Model, error) { return f(id) }

// A command tool's env: names are read through WithEnv too.
func TestWithEnvReachesCommandTools(t *testing.T) {
	t.Setenv("COGLOOP_INJECT_VAR", "from-process")
	wf, err := cogloop.Parse([]byte(`orchestrator: {id: cmd, agents: [show]}
agents:
  - {id: show, type: command, command: [env], env: [COGLOOP_INJECT_VAR]}
`), "cmd.yaml", cogloop.WithEnv(func(name string) (string, bool) {
		if name == "COGLOOP_INJECT_VAR" {
			return "from-lookup", true
		}
		return "", false
	}))
	require.NoError(t, err)
	res, err := wf.Run(context.Background(), "x")
	require.NoError(t, err)
	assert.Contains(t, res.Text(), "COGLOOP_INJECT_VAR=from-lookup")
	assert.NotContains(t, res.Text(), "from-process")
}

// inherit_env would hand the process environment to the command behind
// WithEnv's back: with an injected environment it is refused at its key.
func TestWithEnvRefusesInheritEnv(t *testing.T) {
	src := []byte(`orchestrator: {id: cmd, agents: [show]}
agents:
  - {id: show, type: command, command: [env], inherit_env: true}
`)
	_, err := cogloop.Parse(src, "cmd.yaml", cogloop.WithEnv(func(string) (string, bool) { return "", false }))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cmd.yaml:3:")
	assert.Contains(t, err.Error(), "inherit_env")
	assert.Contains(t, err.Error(), "under env:")

	_, err = cogloop.Parse(src, "cmd.yaml") // without WithEnv it means what it says
	require.NoError(t, err)
}
