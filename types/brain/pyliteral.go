package brain

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLiteralDepth bounds the nesting a Python literal may have.
const maxLiteralDepth = 64

// parsePython reads a Python literal as Jinja renders a mapping into a
// template (a dict's repr: single-quoted strings with backslash escapes,
// True/False/None, lists and tuples), the way OrKa's brain reads its prompt
// with ast.literal_eval. Only the literal forms are read; anything else is an
// error.
func parsePython(s string) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errors.New("text after the literal")
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

var errLiteral = errors.New("not a Python literal")

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxLiteralDepth {
		return nil, errors.New("literal nested too deeply")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, errLiteral
	}
	switch c := p.s[p.i]; c {
	case '{':
		return p.dict(depth)
	case '[', '(':
		return p.list(depth, map[byte]byte{'[': ']', '(': ')'}[c])
	case '\'', '"':
		return p.str()
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",:]})] \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
	word := p.s[start:p.i]
	switch word {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	}
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return int(n), nil
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil {
		return f, nil
	}
	return nil, errLiteral
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	out := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, errLiteral
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out[fmtKey(k)] = v
		if !p.sep('}') {
			return nil, errLiteral
		}
	}
}

func fmtKey(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	return fmt.Sprint(k)
}

func (p *pyParser) list(depth int, end byte) (any, error) {
	p.i++
	out := []any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.sep(end) {
			return nil, errLiteral
		}
	}
}

// sep reads a "," (then the caller loops) or the closing end (left for the
// caller to consume).
func (p *pyParser) sep(end byte) bool {
	p.space()
	if p.i >= len(p.s) {
		return false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return true
	case end:
		return true
	}
	return false
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return nil, errLiteral
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil || r > utf8.MaxRune || !utf8.ValidRune(rune(r)) {
					return nil, errLiteral
				}
				b.WriteRune(rune(r))
				p.i += n
			default: // \\, \', \" and unknown escapes keep the character
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, errLiteral
}
