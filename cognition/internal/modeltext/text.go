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
	if r < utf8.RuneSelf {
		return asciiSpace[r]
	}
	return unicode.IsSpace(r)
}

// asciiSpace is IsSpace for ASCII: \t \n \v \f \r, U+001C–U+001F and the space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true}

// TrimSpace is Python's str.strip(): s without leading and trailing IsSpace
// characters.
func TrimSpace(s string) string {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += size
	}
	j := len(s)
	for j > i {
		if c := s[j-1]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			j--
			continue
		}
		r, size := utf8.DecodeLastRuneInString(s[i:j])
		if !unicode.IsSpace(r) {
			break
		}
		j -= size
	}
	return s[i:j]
}
