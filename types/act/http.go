package act

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Defaults of the http type.
const (
	DefaultHTTPTimeout = 30 * time.Second
	DefaultMaxBytes    = 1 << 20
	maxRedirects       = 10
)

// HTTP is the http agent type: one request to a host in its allow-list. Its
// output's response is the body (decoded when the response is JSON); its
// fields are status, headers and body, which a model calling it as a tool
// reads too. Any status is a result, not a failure.
type HTTP struct {
	ID string
	// Method, URL and Body are templates; a nil Method means GET, a nil Body
	// sends none.
	Method, URL, Body *prompt.Template
	// Headers are header names and their value templates.
	Headers map[string]*prompt.Template
	// Timeout bounds the whole exchange, body included.
	Timeout time.Duration
	// MaxBytes caps the (decompressed) body read.
	MaxBytes int64

	rules  []hostRule
	client *http.Client
}

var _ agents.Agent = (*HTTP)(nil)

func httpFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	a := &HTTP{ID: c.String("id", "")}
	a.Method = b.Template(c, "method")
	if !c.Has("url") {
		c.Errorf("", "url is required: the request's URL (a template)")
	}
	a.URL = b.Template(c, "url")
	a.Body = b.Template(c, "body")
	if hc := c.Map("headers"); hc != nil {
		a.Headers = map[string]*prompt.Template{}
		for _, k := range hc.Keys() {
			if t := b.Template(hc, k); t != nil {
				a.Headers[k] = t
			}
		}
		hc.Done()
	}
	a.Timeout = c.Duration("timeout", DefaultHTTPTimeout)
	a.MaxBytes = int64(c.Int("max_bytes", DefaultMaxBytes, 1, 1<<30))
	hosts := c.Strings("allow_hosts")
	if !c.Recording() && len(hosts) == 0 {
		c.Errorf("", "allow_hosts is required: the hosts this tool may reach (api.example.com, *.example.com, 127.0.0.1:8080); any other host is refused")
	}
	for _, h := range hosts {
		r, err := parseHostRule(h)
		if err != nil {
			c.Errorf("allow_hosts", "allow_hosts: %v", err)
			continue
		}
		a.rules = append(a.rules, r)
	}
	if a.URL != nil && a.URL.Plain() && len(a.rules) > 0 {
		if raw, err := a.URL.Render(prompt.Data{}); err == nil {
			if _, err := checkURL(a.rules, raw); err != nil {
				c.Errorf("url", "%v", err)
			}
		}
	}
	if a.Timeout <= 0 {
		a.Timeout = DefaultHTTPTimeout
	}
	a.client = a.newClient()
	return a, nil
}

// newClient is a client that uses no proxy (a proxy would make allow_hosts
// moot) and checks every redirect against the allow-list.
func (a *HTTP) newClient() *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if !allowed(a.rules, req.URL) || req.URL.User != nil {
			return fmt.Errorf("redirect to host %q refused: it is not in allow_hosts", req.URL.Host)
		}
		return nil
	}}
}

// Run renders the request, checks its host and sends it.
func (a *HTTP) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	method, err := a.method(in)
	if err != nil {
		return agents.Output{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	req, u, err := a.request(ctx, in, method)
	if err != nil {
		return agents.Output{}, err
	}
	what := in.Run.Scrub(method + " " + u.Redacted())
	resp, err := a.client.Do(req)
	if err != nil {
		return agents.Output{}, a.failed(ctx, what, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := readBody(resp, a.MaxBytes)
	if err != nil {
		return agents.Output{}, a.failed(ctx, what, err)
	}
	return responseOutput(in, what, resp, data), nil
}

// method renders the request's method (default GET), one of HTTP's.
func (a *HTTP) method(in agents.Input) (string, error) {
	method := http.MethodGet
	if a.Method != nil {
		m, err := in.Render(a.Method)
		if err != nil {
			return "", fmt.Errorf("render method: %w", err)
		}
		method = strings.ToUpper(strings.TrimSpace(m))
	}
	if !slices.Contains([]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}, method) {
		return "", fmt.Errorf("method %q is not an HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS)", clip(method, 40))
	}
	return method, nil
}

// request renders the request's url u (checked against allow_hosts), body
// and headers.
func (a *HTTP) request(ctx context.Context, in agents.Input, method string) (_ *http.Request, u *url.URL, _ error) {
	raw, err := in.Render(a.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("render url: %w", err)
	}
	u, err = checkURL(a.rules, raw)
	if err != nil {
		return nil, nil, err
	}
	var body io.Reader
	if a.Body != nil {
		s, err := in.Render(a.Body)
		if err != nil {
			return nil, nil, fmt.Errorf("render body: %w", err)
		}
		body = strings.NewReader(s)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	for k, t := range a.Headers {
		v, err := in.Render(t)
		if err != nil {
			return nil, nil, fmt.Errorf("render header %s: %w", k, err)
		}
		req.Header.Set(k, v)
	}
	return req, u, nil
}

// responseOutput is the output of the response resp to request what, with
// body data (scrubbed; a JSON body decoded): its status, headers and body.
func responseOutput(in agents.Input, what string, resp *http.Response, data []byte) agents.Output {
	headers := make(map[string]any, len(resp.Header))
	for k, vs := range resp.Header {
		headers[strings.ToLower(k)] = in.Run.Scrub(strings.Join(vs, ", "))
	}
	var value any = in.Run.Scrub(string(data))
	if isJSON(resp.Header.Get("Content-Type")) && len(bytes.TrimSpace(data)) > 0 {
		d := json.NewDecoder(strings.NewReader(value.(string)))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err == nil && !d.More() {
			value = v
		}
	}
	return agents.Output{Prompt: what, Response: value,
		Fields: map[string]any{"status": resp.StatusCode, "headers": headers, "body": value}}
}

func (a *HTTP) failed(ctx context.Context, what string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no complete response within the timeout of %s: %w", what, a.Timeout, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// readBody reads at most max bytes of resp's body, after decompressing a
// gzip body the transport left compressed; a longer body is an error.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	r := io.Reader(resp.Body)
	if !resp.Uncompressed && strings.EqualFold(strings.TrimSpace(resp.Header.Get("Content-Encoding")), "gzip") {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("read gzip body: %w", err)
		}
		defer func() { _ = zr.Close() }()
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("the response body is larger than max_bytes (%d bytes): refused; raise max_bytes or ask for less", max)
	}
	return data, nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
