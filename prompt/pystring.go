package prompt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/tokens"
)

// String literals get Python's (Jinja's) escapes. gonja reads a literal with
// Go's: an escape Go does not know ('\s*', a regex) fails to parse, and octal
// escapes like '\1' differ. Each string token's value is decoded here from the
// source as Python's unicode-escape codec does, then encoded for gonja's
// parser so that its Go unquoting gives exactly that value back.

// pyStringValue decodes the body of a string literal (between the quotes) as
// Jinja does: known escapes (\\ \' \" \a \b \f \n \r \t \v, \ooo, \xhh,
// \uXXXX, \UXXXXXXXX, backslash-newline) are decoded; an unknown escape keeps
// its backslash ('\s' is a backslash and an s). A backslash before a non-ASCII
// character is read as Jinja reads it after its ASCII backslash-replacement:
// '\é' is the text \xe9. \N{name} is not supported. off is the offset of
// the escape in the body, for errors.
func pyStringValue(body string) (val string, off int, err error) {
	if strings.IndexByte(body, '\\') < 0 {
		return body, 0, nil
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		if c := body[i]; c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		next, err := writeEscape(&b, body, i)
		if err != nil {
			return "", i, err
		}
		i = next
	}
	return b.String(), 0, nil
}

// writeEscape decodes the escape at body[i] (a backslash) into b and returns
// the index after it.
func writeEscape(b *strings.Builder, body string, i int) (int, error) {
	if i+1 >= len(body) {
		return i, fmt.Errorf(`a string literal cannot end with a single backslash`)
	}
	e := body[i+1]
	if v, ok := simpleEscapes[e]; ok {
		if e != '\n' { // backslash-newline: a line continuation
			b.WriteByte(v)
		}
		return i + 2, nil
	}
	switch {
	case e >= '0' && e <= '7':
		j, n := i+1, 0
		for j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7' {
			n = n*8 + int(body[j]-'0')
			j++
		}
		b.WriteRune(rune(n))
		return j, nil
	case e == 'x' || e == 'u' || e == 'U':
		return writeHexEscape(b, body, i)
	case e == 'N':
		return i, fmt.Errorf(`\N{...} escapes are not supported: write the character itself`)
	case e < utf8.RuneSelf:
		b.WriteByte('\\') // unknown escape: kept as written
		return i + 1, nil
	}
	// Jinja first replaces non-ASCII characters by \xhh, \uXXXX or
	// \UXXXXXXXX; the backslash before it then escapes that backslash.
	r, w := utf8.DecodeRuneInString(body[i+1:])
	writeCodeEscape(b, r)
	return i + 1 + w, nil
}

// writeCodeEscape writes r as \xhh, \uXXXX or \UXXXXXXXX.
func writeCodeEscape(b *strings.Builder, r rune) {
	switch {
	case r < 0x100:
		fmt.Fprintf(b, `\x%02x`, r)
	case r < 0x10000:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// writeHexEscape decodes \xhh, \uXXXX or \UXXXXXXXX at body[i] into b and
// returns the index after it.
func writeHexEscape(b *strings.Builder, body string, i int) (int, error) {
	e := body[i+1]
	width := hexWidth[e]
	hex := body[i+2 : min(i+2+width, len(body))]
	n, perr := strconv.ParseUint(hex, 16, 32)
	if len(hex) < width || perr != nil || strings.ContainsAny(hex, "+-_") {
		return i, fmt.Errorf("truncated \\%c%s escape", e, strings.Repeat("X", width))
	}
	if n > utf8.MaxRune {
		return i, fmt.Errorf(`\U%s is not a valid character`, hex)
	}
	b.WriteRune(rune(n))
	return i + 2 + width, nil
}

// simpleEscapes are Python's one-character escapes.
var simpleEscapes = map[byte]byte{
	'\n': 0, '\\': '\\', '\'': '\'', '"': '"',
	'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
}

var hexWidth = map[byte]int{'x': 2, 'u': 4, 'U': 8}

// forGonja encodes s so that gonja's parser (strconv.Quote, then "\\\\" → "\\",
// then strconv.Unquote) reads it back as s.
func forGonja(s string) string { return strings.ReplaceAll(s, `\`, `\\`) }

// stringBody returns the body of the string literal whose opening quote is at
// src[pos], ending where gonja's lexer ends it (at the first quote not right
// after a backslash), and the offset where the body starts.
func stringBody(src string, pos int) (string, int, bool) {
	if pos < 0 || pos >= len(src) || (src[pos] != '\'' && src[pos] != '"') {
		return "", 0, false
	}
	quote := rune(src[pos])
	prev := rune(0)
	for i, r := range src[pos+1:] {
		if r == quote && prev != '\\' {
			return src[pos+1 : pos+1+i], pos + 1, true
		}
		prev = r
	}
	return "", 0, false
}

// decodeStrings gives every string token of toks its Python value.
func (ps *parseState) decodeStrings(toks []*tokens.Token) *SyntaxError {
	restoreValues(toks, ps.lexed, ps.src)
	for _, t := range toks {
		if t.Type != tokens.String {
			continue
		}
		body, start, ok := stringBody(ps.lexed, t.Pos)
		if !ok {
			continue // not where we expect it: leave gonja's reading
		}
		body = ps.src[start : start+len(body)]
		val, off, err := pyStringValue(body)
		if err != nil {
			return ps.errAt(start+off, "string literal: "+err.Error())
		}
		t.Val = forGonja(val)
	}
	return nil
}

// lexSource is the text gonja's lexer reads: src with every escaped backslash
// (\\) inside a string literal of a tag replaced by two underscores, so that
// the lexer, which ends a literal at the first quote not right after a
// backslash, ends 'a\\' where Jinja does. The length and every other byte are
// unchanged; token values are read back from src (see restoreValues).
func lexSource(src string) string {
	if !strings.Contains(src, `\\`) {
		return src
	}
	m := masker{src: src}
	for i := 0; i < len(src); {
		open := strings.IndexByte(src[i:], '{')
		if open < 0 || i+open+1 >= len(src) {
			break
		}
		i += open
		end, next := tagOpen(src, i)
		switch {
		case next < 0:
			return m.result()
		case end == "":
			i = next
		default:
			i = m.tag(i+2, end)
		}
	}
	return m.result()
}

// tagOpen reads what starts at src[i], a "{" with a character after it: for
// an output or statement tag, its end delimiter; otherwise (a raw block, a
// comment, a lone "{") the index to go on from, -1 when the text ends inside.
func tagOpen(src string, i int) (end string, next int) {
	switch src[i+1] {
	case '{':
		return "}}", i
	case '%':
		if !isRawTag(src[i:]) {
			return "%}", i
		}
		j := strings.Index(src[i+2:], "endraw")
		if j < 0 {
			return "", -1
		}
		return "", i + 2 + j
	case '#':
		j := strings.Index(src[i+2:], "#}")
		if j < 0 {
			return "", -1
		}
		return "", i + 2 + j + 2
	}
	return "", i + 1
}

// masker is lexSource's copy of src with the \\ pairs of string literals
// masked, made on the first one.
type masker struct {
	src    string
	masked []byte
}

// tag skips a tag's inside from i to the end delimiter, masking in its string
// literals, and returns the index after the delimiter.
func (m *masker) tag(i int, end string) int {
	for i < len(m.src) && !strings.HasPrefix(m.src[i:], end) {
		if q := m.src[i]; q == '\'' || q == '"' {
			i = m.literal(i+1, q)
		} else {
			i++
		}
	}
	return i + len(end)
}

// literal skips a string literal from i, after its opening quote q, masking
// its \\ pairs, and returns the index after its closing quote.
func (m *masker) literal(i int, q byte) int {
	for i < len(m.src) && m.src[i] != q {
		if m.src[i] == '\\' && i+1 < len(m.src) {
			if m.src[i+1] == '\\' {
				if m.masked == nil {
					m.masked = []byte(m.src)
				}
				m.masked[i], m.masked[i+1] = '_', '_'
			}
			i += 2
			continue
		}
		i++
	}
	return i + 1 // the closing quote
}

// result is the masked text, or src when nothing was masked.
func (m *masker) result() string {
	if m.masked == nil {
		return m.src
	}
	return string(m.masked)
}

// isRawTag reports whether s starts with a {% raw %} tag.
func isRawTag(s string) bool {
	s = strings.TrimLeft(s[2:], "-+ \t\n")
	return strings.HasPrefix(s, "raw") && (len(s) == 3 || strings.IndexByte(" \t\n-+%", s[3]) >= 0)
}

// restoreValues gives the tokens lexed from lexSource(src) the text of src.
func restoreValues(toks []*tokens.Token, lexed, src string) {
	if lexed == src {
		return
	}
	for _, t := range toks {
		end := t.Pos + len(t.Val)
		if t.Pos >= 0 && end <= len(src) && lexed[t.Pos:end] == t.Val {
			t.Val = src[t.Pos:end]
		}
	}
}
