package modeltext

import (
	"unicode"
	"unicode/utf8"
)

// ExcerptLen is how many characters of model output an error or warning quotes.
const ExcerptLen = 80

// Cap cuts s to at most max bytes at a rune boundary.
func Cap(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// Excerpt cuts s to ExcerptLen characters, marking the cut with "…".
func Excerpt(s string) string {
	n := 0
	for i := range s {
		if n == ExcerptLen {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Fields are the fields of a mapping result that hold the agent's text, in
// OrKa's order.
var Fields = [...]string{"response", "result", "output", "data"}

// IsSpace is Python's str.isspace for one character: Unicode white space plus
// the ASCII separators U+001C–U+001F.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
