package search

import (
	"context"
	"net/http"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
)

// Options are the duckduckgo type's dependencies. The zero value searches
// DuckDuckGo with a plain HTTP client and real timers.
type Options struct {
	// Endpoint replaces [Endpoint] (tests point it at a local server).
	Endpoint string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Sleep replaces the retry backoff's timer (tests).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Register adds the duckduckgo agent type to r.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	r.MustRegister("duckduckgo", o.factory)
}

func (o Options) factory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &Agent{ID: c.String("id", "")}
	a.Prompt = b.Template(c, "prompt")
	a.MaxResults = c.Int("max_results", DefaultMaxResults, 1, 50)
	a.Timeout = c.Duration("timeout", DefaultTimeout)
	a.Retry = retry.Retrier{Policy: retry.ReadPolicy(c, "retry", retry.DefaultLLM()), Sleep: o.Sleep}
	a.Search = &DuckDuckGo{Endpoint: o.Endpoint, Client: o.HTTPClient}
	c.Ignore("queue")
	c.IgnoreBecause("(OrKa's duckduckgo reads only its prompt, the query)", "params")
	return a, nil
}
