package act

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode/utf8"
)

// hostRule is one allow_hosts entry: a host name or IP address, or
// "*.domain" for every subdomain of domain; with a port, only that port.
type hostRule struct {
	host     string // lower case, no brackets; for a wildcard the domain with a leading "."
	wildcard bool
	port     string // "" means any port
}

// parseHostRule reads one allow_hosts entry.
func parseHostRule(s string) (hostRule, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return hostRule{}, fmt.Errorf("an empty entry")
	}
	if strings.Contains(s, "/") {
		return hostRule{}, fmt.Errorf("%q is not a host: give the host name (api.example.com), without scheme or path", s)
	}
	var r hostRule
	host := s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, r.port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		if rest == "" || strings.Contains(rest, "*") {
			return hostRule{}, fmt.Errorf("%q: a wildcard is *.domain", s)
		}
		r.host, r.wildcard = "."+rest, true
		return r, nil
	}
	if host == "" || strings.Contains(host, "*") {
		return hostRule{}, fmt.Errorf("%q is not a host name", s)
	}
	r.host = host
	return r, nil
}

// allowed reports whether u's host (and port) is allowed by one of rules.
func allowed(rules []hostRule, u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	for _, r := range rules {
		if r.port != "" && r.port != port {
			continue
		}
		if r.wildcard && strings.HasSuffix(host, r.host) || !r.wildcard && host == r.host {
			return true
		}
	}
	return false
}

// checkURL parses raw and checks it against rules: an http(s) URL with a host
// in the list, and no user info (credentials belong in headers).
func checkURL(rules []hostRule, raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("url %q is not a URL: %w", clip(raw, 200), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url %q must start with http:// or https://", clip(u.Redacted(), 200))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q has no host", clip(u.Redacted(), 200))
	}
	if u.User != nil {
		return nil, fmt.Errorf("url %q has user info: send credentials in headers", clip(u.Redacted(), 200))
	}
	if !allowed(rules, u) {
		return nil, fmt.Errorf("host %q is not in allow_hosts: refused before any request (add it to allow_hosts if the tool may reach it)", u.Host)
	}
	return u, nil
}

// clip shortens s to n bytes plus "…", for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
