package search

import (
	"context"
	"errors"
	"fmt"
	"github.com/cogloop/cogloop/agents/retry"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Endpoint is DuckDuckGo's HTML search page.
const Endpoint = "https://html.duckduckgo.com/html/"

// MaxPageBytes caps the HTML read from one results page.
const MaxPageBytes = 2 << 20

// userAgent is sent with every request; the HTML page refuses requests without one.
const userAgent = "Mozilla/5.0 (compatible; cogloop-search/1.0)"

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Searcher runs a web search and returns at most max results, best first.
type Searcher interface {
	Search(ctx context.Context, query string, max int) ([]Result, error)
}

// DuckDuckGo searches through DuckDuckGo's HTML page, the way its own form
// does: a POST of q to the endpoint.
type DuckDuckGo struct {
	// Endpoint is the page's URL; "" means [Endpoint]. Tests point it at a
	// local server.
	Endpoint string
	// Client sends the requests; nil means a client without its own timeout
	// (the caller's context bounds each request).
	Client *http.Client
	// MaxBytes caps the HTML read; 0 means [MaxPageBytes].
	MaxBytes int64
}

var _ Searcher = (*DuckDuckGo)(nil)

func (d *DuckDuckGo) endpoint() string {
	if d.Endpoint == "" {
		return Endpoint
	}
	return d.Endpoint
}

// Search posts query and parses the results page. A failed request or an
// HTTP status other than 200 is an error naming the endpoint; a status is an
// [retry.CallError] so retry policies classify it (DuckDuckGo answers a bot
// check with 202, taken as a rate limit).
func (d *DuckDuckGo) Search(ctx context.Context, query string, max int) ([]Result, error) {
	ep := d.endpoint()
	form := url.Values{"q": {query}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, retry.Permanent(fmt.Errorf("search endpoint %s: %w", ep, err))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", userAgent)
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("search DuckDuckGo at %s (is the network reachable?): %w", ep, err)
	}
	defer func() { _ = resp.Body.Close() }() // read-only
	limit := d.MaxBytes
	if limit <= 0 {
		limit = MaxPageBytes
	}
	body := io.LimitReader(resp.Body, limit)
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
		ce := &retry.CallError{Status: resp.StatusCode, RetryAfter: retry.ParseAfter(resp.Header.Get("Retry-After"), time.Now()),
			Err: fmt.Errorf("search DuckDuckGo at %s: HTTP %d", ep, resp.StatusCode)}
		if resp.StatusCode == http.StatusAccepted {
			ce.Class = retry.ClassRateLimit
			ce.Err = fmt.Errorf("search DuckDuckGo at %s: HTTP 202, a bot check (too many searches; wait or lower the rate)", ep)
		}
		return nil, ce
	}
	res, err := Parse(body, max)
	if err != nil {
		return nil, fmt.Errorf("search DuckDuckGo at %s: read the results page: %w", ep, err)
	}
	return res, nil
}
