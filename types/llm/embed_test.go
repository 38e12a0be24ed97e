package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/cogloop/cogloop/types/llm"
)

// OpenAI /v1/embeddings wire format: one embedding per input, in order.
func embeddingsOK(w http.ResponseWriter, body map[string]any, vec func(string) []float32) {
	w.Header().Set("Content-Type", "application/json")
	inputs, _ := body["input"].([]any)
	data := make([]map[string]any, len(inputs))
	for i, in := range inputs {
		s, _ := in.(string)
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vec(s)}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": body["model"],
		"usage": map[string]any{"prompt_tokens": 3, "total_tokens": 3}})
}

// Ollama /api/embed wire format: {"model", "embeddings": [[...]]}.
func ollamaEmbedOK(w http.ResponseWriter, body map[string]any, vec func(string) []float32) {
	w.Header().Set("Content-Type", "application/json")
	var texts []string
	switch in := body["input"].(type) {
	case string:
		texts = []string{in}
	case []any:
		for _, x := range in {
			s, _ := x.(string)
			texts = append(texts, s)
		}
	}
	embs := make([][]float32, len(texts))
	for i, s := range texts {
		embs[i] = vec(s)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"model": body["model"], "embeddings": embs})
}

func lengthVec(s string) []float32 { return []float32{float32(len(s)), 1, 0.5} }

func TestEmbedderWireProtocols(t *testing.T) {
	cases := []struct {
		name     string
		cfg      func(url string) llm.Config
		path     string
		respond  func(w http.ResponseWriter, body map[string]any)
		model    string
		authWant string
	}{
		{
			name: "openai",
			cfg: func(u string) llm.Config {
				return llm.Config{Provider: llm.OpenAI, URL: u, Getenv: env("OPENAI_API_KEY", "sk-embed")}
			},
			path:     "/v1/embeddings",
			respond:  func(w http.ResponseWriter, b map[string]any) { embeddingsOK(w, b, lengthVec) },
			model:    llm.DefaultOpenAIEmbeddingModel,
			authWant: "Bearer sk-embed",
		},
		{
			name: "openai endpoint URL",
			cfg: func(u string) llm.Config {
				return llm.Config{Provider: llm.OpenAI, Model: "text-embedding-3-large", URL: u + "/v1/embeddings", Getenv: env("OPENAI_API_KEY", "sk-embed")}
			},
			path:     "/v1/embeddings",
			respond:  func(w http.ResponseWriter, b map[string]any) { embeddingsOK(w, b, lengthVec) },
			model:    "text-embedding-3-large",
			authWant: "Bearer sk-embed",
		},
		{
			name: "lm_studio sends no OpenAI key",
			cfg: func(u string) llm.Config {
				return llm.Config{Provider: llm.LMStudio, Model: "nomic", URL: u, Getenv: env("OPENAI_API_KEY", "sk-must-not-leave")}
			},
			path:     "/v1/embeddings",
			respond:  func(w http.ResponseWriter, b map[string]any) { embeddingsOK(w, b, lengthVec) },
			model:    "nomic",
			authWant: "Bearer not-needed",
		},
		{
			name: "ollama",
			cfg: func(u string) llm.Config {
				return llm.Config{Provider: llm.Ollama, Model: "nomic-embed-text", URL: u, Getenv: env()}
			},
			path:    "/api/embed",
			respond: func(w http.ResponseWriter, b map[string]any) { ollamaEmbedOK(w, b, lengthVec) },
			model:   "nomic-embed-text",
		},
		{
			name: "ollama endpoint URL",
			cfg: func(u string) llm.Config {
				return llm.Config{Provider: llm.Ollama, Model: "nomic-embed-text", URL: u + "/api/embed", Getenv: env()}
			},
			path:    "/api/embed",
			respond: func(w http.ResponseWriter, b map[string]any) { ollamaEmbedOK(w, b, lengthVec) },
			model:   "nomic-embed-text",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				tc.respond(w, body)
			})
			e, err := llm.NewEmbedder(tc.cfg(srv.URL))
			require.NoError(t, err)
			vec, err := e.Embed(context.Background(), "hello world")
			require.NoError(t, err)
			assert.Equal(t, []float32{11, 1, 0.5}, vec)

			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, tc.path, reqs[0].Path)
			assert.Equal(t, tc.model, reqs[0].Body["model"])
			assert.Contains(t, reqs[0].Raw, `"hello world"`)
			assert.Equal(t, tc.authWant, reqs[0].Header.Get("Authorization"))
			assert.Equal(t, tc.model, e.Model())
		})
	}
}

func TestEmbedderErrors(t *testing.T) {
	t.Run("http error names the URL and status, never the key", func(t *testing.T) {
		srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
			openAIError(w, http.StatusUnauthorized, "Incorrect API key provided: sk-secret-123")
		})
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.OpenAI, URL: srv.URL, Getenv: env("OPENAI_API_KEY", "sk-secret-123")})
		require.NoError(t, err)
		_, err = e.Embed(context.Background(), "x")
		require.Error(t, err)
		msg := err.Error()
		assert.Contains(t, msg, srv.URL+"/v1")
		assert.Contains(t, msg, "HTTP 401")
		assert.Contains(t, msg, "embedding model")
		assert.Contains(t, msg, "Incorrect API key provided")
		assert.NotContains(t, msg, "failed to create openai embeddings", "langchaingo's wording is dropped")
		assert.NotContains(t, chain(err), "sk-secret-123")
		var ce *retry.CallError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, http.StatusUnauthorized, ce.Status)
		assert.Equal(t, retry.ClassPermanent, retry.Classify(err))
	})
	t.Run("server error is retryable", func(t *testing.T) {
		srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
			ollamaError(w, http.StatusServiceUnavailable, "model is loading")
		})
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "m", URL: srv.URL, Getenv: env()})
		require.NoError(t, err)
		_, err = e.Embed(context.Background(), "x")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "HTTP 503")
		assert.Contains(t, err.Error(), "model is loading")
		assert.Contains(t, err.Error(), srv.URL)
		assert.Equal(t, retry.ClassServerError, retry.Classify(err))
	})
	t.Run("ollama error status with an empty body", func(t *testing.T) {
		srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
			w.WriteHeader(http.StatusInternalServerError)
		})
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "m", URL: srv.URL, Getenv: env()})
		require.NoError(t, err)
		_, err = e.Embed(context.Background(), "x")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "HTTP 500")
	})
	t.Run("connection refused names the URL", func(t *testing.T) {
		u := "http://" + nettest.ClosedAddr(t)
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "m", URL: u, Getenv: env()})
		require.NoError(t, err)
		_, err = e.Embed(context.Background(), "x")
		require.Error(t, err)
		assert.Contains(t, err.Error(), u)
	})
	t.Run("empty embedding", func(t *testing.T) {
		srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
			embeddingsOK(w, body, func(string) []float32 { return []float32{} })
		})
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.OpenAICompatible, Model: "m", URL: srv.URL, Getenv: env()})
		require.NoError(t, err)
		_, err = e.Embed(context.Background(), "x")
		require.ErrorIs(t, err, agents.ErrEmptyReply)
	})
	t.Run("missing key", func(t *testing.T) {
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.OpenAI, URL: "http://127.0.0.1:1", Getenv: env()})
		require.NoError(t, err, "building needs no key")
		_, err = e.Embed(context.Background(), "x")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "OPENAI_API_KEY")
	})
	t.Run("cancelled context", func(t *testing.T) {
		srv := newServer(t, func(_ int, _ http.ResponseWriter, r *http.Request, _ map[string]any) { block(r) })
		e, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "m", URL: srv.URL, Getenv: env()})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = e.Embed(ctx, "x")
		require.ErrorIs(t, err, context.Canceled)
	})
}

func TestNewEmbedderRefuses(t *testing.T) {
	cases := []struct {
		cfg  llm.Config
		want string
	}{
		{llm.Config{Provider: llm.Anthropic, Model: "x"}, "no embeddings API"},
		{llm.Config{Provider: llm.Ollama}, "needs an embedding model"},
		{llm.Config{Provider: "nope", Model: "x"}, "unknown provider"},
		{llm.Config{Provider: llm.Ollama, Model: "x", URL: "ftp://host"}, "must start with http"},
		{llm.Config{Provider: llm.OpenAICompatible, Model: "x"}, "needs model_url"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.cfg.Provider, " ", tc.want), func(t *testing.T) {
			_, err := llm.NewEmbedder(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestEmbedderRedactsURLUserinfo(t *testing.T) {
	e, err := llm.NewEmbedder(llm.Config{Provider: llm.Ollama, Model: "m", URL: "http://user:hunter2@127.0.0.1:1/api/embed"})
	require.NoError(t, err)
	assert.False(t, strings.Contains(e.String(), "hunter2"), e.String())
	_, err = e.Embed(context.Background(), "x")
	require.Error(t, err)
	assert.NotContains(t, chain(err), "hunter2")
	assert.False(t, errors.Is(err, agents.ErrEmptyReply))
}
