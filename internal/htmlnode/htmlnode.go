package htmlnode

import (
	"io"
	"strings"

	"golang.org/x/net/html"
)

// Parse parses a whole page.
func Parse(r io.Reader) (*html.Node, error) { return html.Parse(r) }

// All returns the elements below n (n included) for which keep is true, in
// document order.
func All(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Tag matches elements named name (lower case, as the parser names them).
func Tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// Class matches elements named tag with class c among their classes.
func Class(tag, c string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag && HasClass(n, c) }
}

// Attr is n's attribute key ("" when it has none).
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// HasClass reports whether c is one of n's classes.
func HasClass(n *html.Node, c string) bool {
	for _, f := range strings.Fields(Attr(n, "class")) {
		if f == c {
			return true
		}
	}
	return false
}

// Text is the text below n.
func Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
