package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/prompt"
)

// DefaultMaxResults is OrKa's number of results.
const DefaultMaxResults = 5

// DefaultTimeout bounds one search request (OrKa's DDGS timeout).
const DefaultTimeout = 10 * time.Second

// MaxSnippet is the length, in characters, past which a snippet in the
// response is cut (with "..."), as OrKa does.
const MaxSnippet = 500

// Agent is OrKa's duckduckgo agent: it renders its prompt and searches the
// web for it. Its output's response is the list of snippets (OrKa's shape),
// its fields are results (the hits with title, url and snippet), result (the
// snippets again, as OrKa's tools are read), query and num_results.
type Agent struct {
	// ID names the agent; the run's scripted model answers by it.
	ID string
	// Prompt renders the query; nil means the input text.
	Prompt *prompt.Template
	// Search runs real searches.
	Search Searcher
	// MaxResults caps the results; <= 0 means [DefaultMaxResults].
	MaxResults int
	// Timeout bounds each attempt; 0 means none.
	Timeout time.Duration
	// Retry runs the attempts under the agent's policy.
	Retry retry.Retrier
}

var _ agents.Agent = (*Agent)(nil)

// Run searches for the rendered prompt. A run with models (--script) asks the
// model of the agent's id instead of the web.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	query, err := in.RenderOrInput(a.Prompt)
	if err != nil {
		return agents.Output{}, err
	}
	out := agents.Output{Prompt: query}
	if strings.TrimSpace(query) == "" {
		return out, retry.Permanent(errors.New("the query is empty: the rendered prompt has no text to search for"))
	}
	max := a.MaxResults
	if max <= 0 {
		max = DefaultMaxResults
	}
	search, err := a.searcher(in, query, max, &out)
	if err != nil {
		return out, err
	}
	results, err := a.attempts(ctx, in, search)
	if err != nil {
		return out, err
	}
	snippets := make([]any, len(results))
	hits := make([]any, len(results))
	for i, r := range results {
		s := r.Snippet
		if s == "" {
			s = r.Title
		}
		snippets[i] = cut(s, MaxSnippet)
		hits[i] = map[string]any{"title": r.Title, "url": r.URL, "snippet": r.Snippet}
	}
	out.Response = snippets
	out.Fields = map[string]any{"results": hits, "result": append([]any(nil), snippets...),
		"query": query, "num_results": len(results)}
	return out, nil
}

// searcher is how the agent searches for query, at most max results: the
// run's model for the agent's id (a script) when there is one, whose usage
// is added to out's, else its searcher.
func (a *Agent) searcher(in agents.Input, query string, max int, out *agents.Output) (func(ctx context.Context) ([]Result, error), error) {
	var model agents.Model
	if in.Run != nil && in.Run.Models != nil {
		// A source with no model for this agent (nil, nil) leaves it on DuckDuckGo.
		var err error
		if model, err = in.Run.Models.ModelFor(a.ID); err != nil {
			return nil, err
		}
	}
	if model != nil {
		return func(ctx context.Context) ([]Result, error) {
			rep, err := model.Generate(ctx, agents.Request{Agent: a.ID, Prompt: query})
			if err != nil {
				return nil, err
			}
			out.Usage = out.Usage.Add(rep.Usage)
			return ParseReply(rep.Text, max), nil
		}, nil
	}
	if a.Search == nil {
		return nil, errors.New("agent has no searcher")
	}
	return func(ctx context.Context) ([]Result, error) { return a.Search.Search(ctx, query, max) }, nil
}

// attempts runs search under the agent's retry policy, each attempt
// bounded by its timeout.
func (a *Agent) attempts(ctx context.Context, in agents.Input, search func(ctx context.Context) ([]Result, error)) ([]Result, error) {
	var results []Result
	err := a.Retry.Do(ctx, in, a.ID, func(ctx context.Context, _ int) error {
		if a.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, a.Timeout)
			defer cancel()
		}
		r, err := search(ctx)
		if err != nil && a.Timeout > 0 && ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within the agent's timeout of %s: %w", a.Timeout, err)
		}
		results = r
		return err
	})
	return results, err
}

// ParseReply reads a scripted reply as search results: a JSON or YAML list
// whose items are snippets or mappings {title, url, snippet} (body and href
// are read as snippet and url), else the whole text as one snippet.
func ParseReply(text string, max int) []Result {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "[") || strings.HasPrefix(t, "- ") {
		var items []any
		if err := yaml.Unmarshal([]byte(t), &items); err == nil {
			out := make([]Result, 0, len(items))
			for _, it := range items {
				if r, ok := replyItem(it); ok {
					out = append(out, r)
				}
			}
			if max > 0 && len(out) > max {
				out = out[:max]
			}
			return out
		}
	}
	return []Result{{Snippet: t}}
}

func replyItem(it any) (Result, bool) {
	switch v := it.(type) {
	case nil:
		return Result{}, false
	case map[string]any:
		pick := func(keys ...string) string {
			for _, k := range keys {
				if s, ok := v[k]; ok && s != nil {
					return agents.Text(s)
				}
			}
			return ""
		}
		return Result{Title: pick("title"), URL: pick("url", "href", "link"), Snippet: pick("snippet", "body", "content")}, true
	default:
		return Result{Snippet: agents.Text(v)}, true
	}
}

// cut shortens s to n characters plus "...".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}
