package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/types/llm"
)

// Refused credentials (401, 403) and an unknown model (404) are fatal: one
// request, no retry, and the error says what to fix. Other client errors (400)
// and server errors stay ordinary failures.
func TestRefusedKeysAndUnknownModelsAreFatal(t *testing.T) {
	fixes := map[string]map[int]string{
		"openai":    {401: "check the API key in OPENAI_API_KEY", 403: "check that the API key in OPENAI_API_KEY may use this model", 404: `check the model name "gpt-test" and model_url`},
		"ollama":    {401: "name the variable holding its key with api_key_env", 403: "api_key_env", 404: `check the model name "llama3" (ollama pull llama3) and model_url`},
		"lm_studio": {401: "name the variable holding its key with api_key_env", 403: "api_key_env", 404: `check the model name "qwen" and model_url`},
	}
	for _, p := range protos {
		for _, status := range []int{401, 403, 404, 400, 500} {
			t.Run(fmt.Sprintf("%s/%d", p.name, status), func(t *testing.T) {
				srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
					p.fail(w, status, "nope")
				})
				sl := &fakeSleep{}
				a := mustBuild(t, llm.Options{Getenv: p.env, Sleep: sl.Sleep}, p.agent(srv.URL))
				_, err := a.Run(context.Background(), input(nil))
				require.Error(t, err)
				assert.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", status))
				fix, fatal := fixes[p.name][status]
				assert.Equal(t, fatal, fault.IsFatal(err), "fatal: %v", err)
				if !fatal {
					return
				}
				var fe *fault.FatalError
				require.True(t, errors.As(err, &fe))
				assert.Contains(t, fe.Fix, fix)
				assert.Contains(t, err.Error(), fix, "the message carries the fix")
				assert.Len(t, srv.Requests(), 1, "a fatal error is not retried")
				assert.Empty(t, sl.Waits())
				var ce *retry.CallError
				require.True(t, errors.As(err, &ce), "the status stays readable")
				assert.Equal(t, status, ce.Status)
			})
		}
	}
}

// The fix of a refused key names the variable the key came from.
func TestRefusedKeyFixNamesTheVariable(t *testing.T) {
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		openAIError(w, http.StatusUnauthorized, "bad key")
	})
	a := mustBuild(t, llm.Options{Getenv: env("MY_GATEWAY_KEY", "k-1")},
		"id: x\ntype: local_llm\nprovider: openai_compatible\napi_key_env: MY_GATEWAY_KEY\nmodel: m\nmodel_url: "+srv.URL+"\nprompt: hi\n")
	_, err := a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.True(t, fault.IsFatal(err))
	assert.Contains(t, err.Error(), "check the API key in MY_GATEWAY_KEY; the server does not accept it")
	assert.NotContains(t, chain(err), "k-1")
}
