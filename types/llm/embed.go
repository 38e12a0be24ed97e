package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/memory"
)

// DefaultOpenAIEmbeddingModel is the embedding model of provider openai when
// none is given. Other providers need a model.
const DefaultOpenAIEmbeddingModel = "text-embedding-3-small"

// Embedder turns text into a vector through a provider's embeddings endpoint,
// with langchaingo's clients: OpenAI's /v1/embeddings (providers openai,
// openai_compatible, lm_studio, googleai) or Ollama's /api/embed. It shares
// [Model]'s handling of URLs, keys and errors: building one checks the provider
// and URL but reads no key and makes no call; the key is read and the client
// built on the first Embed. An Embedder is safe for concurrent use.
type Embedder struct {
	m     *Model
	model string

	mu     sync.Mutex
	client embeddingClient
	key    secrets.Secret
}

// embeddingClient is the part of langchaingo's openai and ollama clients an
// Embedder uses.
type embeddingClient interface {
	CreateEmbedding(ctx context.Context, texts []string) ([][]float32, error)
}

var _ memory.Embedder = (*Embedder)(nil)

// NewEmbedder checks c and returns its embedder; c.Model is the embedding
// model. URLs may name the endpoint itself (…/v1/embeddings, …/api/embed,
// …/api/embeddings) or the base URL as for [NewModel]. Anthropic has no
// embeddings API and is refused.
func NewEmbedder(c Config) (*Embedder, error) {
	p, err := ParseProvider(string(c.Provider))
	if err != nil {
		return nil, err
	}
	c.Provider = p
	switch p {
	case Anthropic:
		return nil, fmt.Errorf("provider %s has no embeddings API (use openai, openai_compatible, lm_studio, ollama or googleai)", p)
	case Ollama:
		c.URL = trimPathSuffix(c.URL, "/api/embed", "/api/embeddings")
	default:
		c.URL = trimPathSuffix(c.URL, "/embeddings")
	}
	model := strings.TrimSpace(c.Model)
	if model == "" {
		if p != OpenAI {
			return nil, fmt.Errorf("provider %s needs an embedding model", p)
		}
		model = DefaultOpenAIEmbeddingModel
	}
	c.Model = model
	m, err := NewModel(c)
	if err != nil {
		return nil, err
	}
	return &Embedder{m: m, model: model}, nil
}

// trimPathSuffix removes the first of suffixes that ends raw (ignoring a
// trailing slash); a URL with a query or fragment is left for checkURL to refuse.
func trimPathSuffix(raw string, suffixes ...string) string {
	s := strings.TrimRight(strings.TrimSpace(raw), "/")
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return strings.TrimSuffix(s, suf)
		}
	}
	return raw
}

// Provider is the embedder's provider.
func (e *Embedder) Provider() Provider { return e.m.cfg.Provider }

// Model is the embedding model.
func (e *Embedder) Model() string { return e.model }

// URL is the base URL calls go to (userinfo redacted).
func (e *Embedder) URL() string { return e.m.display }

// String describes the embedder for messages:
// `ollama embedding model "nomic-embed-text" at http://…`.
func (e *Embedder) String() string {
	return fmt.Sprintf("%s embedding model %q at %s", e.m.cfg.Provider, e.model, e.m.display)
}

// Secrets returns the keys the embedder uses or would use, for scrubbing text
// that may echo them.
func (e *Embedder) Secrets() []secrets.Secret {
	out := e.m.Secrets()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.key.IsZero() {
		out = append(out, e.key)
	}
	return out
}

func (e *Embedder) embedder() (embeddingClient, secrets.Secret, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client != nil {
		return e.client, e.key, nil
	}
	key, err := e.m.apiKey()
	if err != nil {
		return nil, secrets.Secret{}, retry.Permanent(err)
	}
	var c embeddingClient
	switch e.m.cfg.Provider {
	case Ollama:
		c, err = ollama.New(ollama.WithServerURL(e.m.base), ollama.WithModel(e.model), ollama.WithHTTPClient(e.m.http))
	default:
		token := key.Reveal()
		if token == "" {
			// langchaingo insists on a token; local servers ignore it.
			token = "not-needed"
		}
		c, err = openai.New(openai.WithToken(token), openai.WithBaseURL(e.m.base),
			openai.WithEmbeddingModel(e.model), openai.WithHTTPClient(e.m.http))
	}
	if err != nil {
		return nil, secrets.Secret{}, retry.Permanent(fmt.Errorf("set up %s client: %w", e.m.cfg.Provider, secrets.ScrubError(err, key)))
	}
	e.client, e.key = c, key
	return c, key, nil
}

// Embed returns the embedding of text. A failure is an *[retry.CallError]
// (HTTP status and Retry-After recorded by the transport, so retry policies
// work as for [Model.Generate]) whose message names the provider, model and
// URL and never holds the API key. An empty embedding is an error wrapping
// [agents.ErrEmptyReply].
func (e *Embedder) Embed(ctx context.Context, text string) ([]float32, error) {
	what := "embed with " + e.String()
	client, key, err := e.embedder()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ex := &exchange{}
	vecs, err := client.CreateEmbedding(context.WithValue(ctx, exchangeKey{}, ex), []string{text})
	if ex.isOver() {
		return nil, retry.Permanent(fmt.Errorf("%s: the reply is larger than %s, the most an embedding reply may be; it was cut off there", what, byteSize(replyLimit(ex.limit))))
	}
	if err == nil {
		if st, _, _ := ex.get(); st >= 400 {
			// langchaingo's ollama client reads an error status with an empty
			// body as success.
			err = errors.New("the server sent an error status with an empty body")
		}
	}
	if err != nil {
		if errors.Is(err, openai.ErrUnexpectedResponseLength) || errors.Is(err, ollama.ErrIncompleteEmbedding) {
			return nil, fmt.Errorf("%s: the server returned %d embeddings for 1 text", what, len(vecs))
		}
		return nil, e.fail(ctx, what, err, ex, key)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("%s: the server returned %d embeddings for 1 text", what, len(vecs))
	}
	if len(vecs[0]) == 0 {
		return nil, fmt.Errorf("%s: %w", what, agents.ErrEmptyReply)
	}
	return vecs[0], nil
}

// fail turns a langchaingo error into Model.fail's *CallError, with what
// (naming the embedder) in place of the chat call's description.
func (e *Embedder) fail(ctx context.Context, what string, err error, ex *exchange, key secrets.Secret) error {
	if errors.Is(err, openai.ErrEmptyResponse) || errors.Is(err, ollama.ErrEmptyResponse) {
		if st, _, _ := ex.get(); st < 300 {
			return fmt.Errorf("%s: %w", what, agents.ErrEmptyReply)
		}
	}
	ferr := e.m.fail(ctx, e.model, err, ex, key)
	var ce *retry.CallError
	if errors.As(ferr, &ce) {
		msg := strings.TrimPrefix(ce.Err.Error(), "call "+e.m.describe(e.model)+": ")
		// langchaingo's openai client prefixes its own wording.
		msg = strings.Replace(msg, "failed to create openai embeddings: ", "", 1)
		cp := *ce
		cp.Err = errors.New(what + ": " + msg)
		return &cp
	}
	// A cancelled context: keep the chain so errors.Is works.
	return fmt.Errorf("%s: %w", what, errors.Unwrap(ferr))
}
