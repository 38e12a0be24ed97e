package search

import (
	"io"
	"net/url"
	"strings"

	"github.com/cogloop/cogloop/internal/htmlnode"
	"golang.org/x/net/html"
)

// Parse reads a DuckDuckGo HTML results page and returns its first max
// organic results (max <= 0: all). A result is an element of class "result"
// (ads, class "result--ad", are skipped) holding a link of class "result__a"
// (title and target), optionally an element of class "result__url" and one of
// class "result__snippet". A page without results gives none and no error.
func Parse(r io.Reader, max int) ([]Result, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	var out []Result
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		if n.Type == html.ElementNode && htmlnode.HasClass(n, "result") {
			if htmlnode.HasClass(n, "result--ad") {
				return true
			}
			if res, ok := result(n); ok {
				out = append(out, res)
				return max <= 0 || len(out) < max
			}
			return true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	walk(doc)
	return out, nil
}

func result(block *html.Node) (Result, bool) {
	title := find(block, "result__a")
	if title == nil {
		return Result{}, false
	}
	res := Result{Title: text(title), URL: target(htmlnode.Attr(title, "href"))}
	if res.URL == "" {
		if u := find(block, "result__url"); u != nil {
			res.URL = target(htmlnode.Attr(u, "href"))
			if res.URL == "" {
				res.URL = text(u)
			}
		}
	}
	if s := find(block, "result__snippet"); s != nil {
		res.Snippet = text(s)
	}
	return res, res.Title != "" || res.Snippet != ""
}

// target turns a result link into the page it leads to: DuckDuckGo's
// redirect links (//duckduckgo.com/l/?uddg=<url>) give their uddg parameter,
// scheme-relative links get https.
func target(href string) string {
	href = strings.TrimSpace(href)
	if href == "" {
		return ""
	}
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	if dest := u.Query().Get("uddg"); dest != "" && strings.HasSuffix(u.Path, "/l/") {
		return dest
	}
	return href
}

// find returns the first element below n (depth first) with class.
func find(n *html.Node, class string) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && htmlnode.HasClass(c, class) {
			return c
		}
		if f := find(c, class); f != nil {
			return f
		}
	}
	return nil
}

// text is n's text with runs of white space made one space.
func text(n *html.Node) string { return strings.Join(strings.Fields(htmlnode.Text(n)), " ") }
