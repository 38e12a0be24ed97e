// Package search owns web search: the [Searcher] interface, its DuckDuckGo
// implementation ([DuckDuckGo], an HTTP client for DuckDuckGo's HTML page,
// parsed with golang.org/x/net/html) and OrKa's duckduckgo agent type
// ([Agent]), whose rendered prompt is the query.
//
// # Offline
//
// In a run with scripted models (--script), the agent asks the run's model
// for its id instead of the web: a reply is the results, as a JSON or YAML
// list (of snippets, or of {title, url, snippet}), or plain text (one
// snippet). So examples and tests run without network; no test reaches
// beyond loopback.
//
// # Bounds
//
// Each request is bounded in time (the agent's timeout, default 10s, as in
// OrKa) and size ([MaxPageBytes] of HTML are read); failed requests are retried
// by the agent's retry policy (rate limits, server errors, timeouts). An
// unreachable endpoint fails with an error that names it.
//
// A [DuckDuckGo] and an [Agent] are immutable after construction and safe for
// concurrent use.
//
// # Imports
//
// It imports agents, agents/load, agents/retry, internal/htmlnode and prompt.
package search
