package llm_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/types/llm"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSecretCanary runs real calls with a random key in OPENAI_API_KEY against a
// server that echoes the Authorization header in its error bodies, and checks
// that the key shows up nowhere: not in errors (or anything they wrap), events,
// or slog output.
func TestSecretCanary(t *testing.T) {
	canary := agenttest.CanaryKey(t, "OPENAI_API_KEY")

	logs := &lockedBuffer{}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	echo := func(w http.ResponseWriter, r *http.Request, status int) {
		openAIError(w, status, "Incorrect API key provided: "+r.Header.Get("Authorization")+" (key "+canary+")")
	}
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		switch n {
		case 1: // the 401 run
			echo(w, r, http.StatusUnauthorized)
		case 2, 3: // the retried run: 429 and 500 echoing the key, then 401
			w.Header().Set("Retry-After", "1")
			echo(w, r, []int{0, 0, http.StatusTooManyRequests, http.StatusInternalServerError}[n])
		default:
			echo(w, r, http.StatusUnauthorized)
		}
	})

	sl := &fakeSleep{}
	rec := &recorder{}
	// Getenv is not set: the key really comes from the process environment.
	a := mustBuild(t, llm.Options{Sleep: sl.Sleep},
		"id: x\ntype: openai-answer\nmodel: gpt-test\nmodel_url: "+srv.URL+"\nprompt: hi\n")

	_, err1 := a.Run(context.Background(), input(rec))
	require.Error(t, err1)
	assert.Contains(t, err1.Error(), "HTTP 401")
	assert.Contains(t, err1.Error(), "[REDACTED:OPENAI_API_KEY]", "the echoed key was there and was scrubbed")

	_, err2 := a.Run(context.Background(), input(rec))
	require.Error(t, err2)
	assert.Len(t, rec.Events(), 2, "two retries before the 401")

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "Bearer "+canary, reqs[0].Header.Get("Authorization"), "the key was used")

	for _, s := range []string{chain(err1), chain(err2), fmt.Sprintf("%v %+v %#v", err1, err2, err2), rec.JSON(t), logs.String()} {
		assert.NotContains(t, s, canary)
		assert.NotContains(t, s, canary[len("sk-canary-"):])
	}
	assert.Contains(t, rec.JSON(t), "[REDACTED:OPENAI_API_KEY]")
	assert.Contains(t, logs.String(), "retrying call", "the retries were logged (so the check above means something)")
}

// TestAPIKeyInConfigIsScrubbedAndWarned: a key written in the workflow works,
// is scrubbed from errors, and its warning does not repeat it.
func TestAPIKeyInConfigIsScrubbedAndWarned(t *testing.T) {
	key := "sk-inline-" + "4f1d2c3b"
	srv := newServer(t, func(n int, w http.ResponseWriter, r *http.Request, body map[string]any) {
		openAIError(w, http.StatusForbidden, "key "+r.Header.Get("Authorization")+" has no access")
	})
	a, probs := build(t, llm.Options{Getenv: env()},
		"id: x\ntype: llm\nprovider: openai\nmodel: m\napi_key: "+key+"\nmodel_url: "+srv.URL+"\nprompt: hi\n")
	require.NoError(t, probs.Err())
	warns := probs.Warnings()
	require.Len(t, warns, 1)
	assert.Contains(t, warns[0].Error(), "wf.yaml:5:1:")
	assert.Contains(t, warns[0].Error(), "OPENAI_API_KEY")
	assert.NotContains(t, warns[0].Error(), key)

	_, err := a.Run(context.Background(), input(nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 403")
	assert.NotContains(t, chain(err), key)
	assert.Equal(t, "Bearer "+key, srv.Requests()[0].Header.Get("Authorization"))
}
