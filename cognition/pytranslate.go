package cognition

import "strings"

// firstGroup describes the first capturing parenthesis of an expression.
type firstGroup struct {
	found bool
	named bool
	name  string
}

// translatePython rewrites the parts of Python's re syntax that .NET spells
// differently and finds the first capturing group in the text of the expression:
//
//	(?P<name>…)  →  (?<name>…)
//	(?P=name)    →  \k<name>
//	\Z           →  \z          (Python's \Z is the very end of the text)
//
// Everything else is passed through; regexp2 reports what it cannot parse.
// Escapes and character classes are skipped so that a literal "(" or "[(]" is
// not taken for a group.
func translatePython(expr string) (string, firstGroup) {
	var (
		b          strings.Builder
		first      firstGroup
		inClass    bool
		classStart int // index where a leading "]" is still a literal
	)
	b.Grow(len(expr))
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '\\':
			if i+1 < len(expr) {
				if !inClass && expr[i+1] == 'Z' {
					b.WriteString(`\z`)
				} else {
					b.WriteString(expr[i : i+2])
				}
				i += 2
				continue
			}
		case inClass:
			if c == ']' && i != classStart {
				inClass = false
			}
		case c == '[':
			inClass = true
			classStart = i + 1
			if classStart < len(expr) && expr[classStart] == '^' {
				classStart++
			}
		case c == '(':
			if n := translateGroup(expr, i, &b, &first); n > 0 {
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), first
}

// note records the first group, if none is recorded yet.
func (f *firstGroup) note(named bool, name string) {
	if !f.found {
		*f = firstGroup{found: true, named: named, name: name}
	}
}

// translateGroup handles the "(" at expr[i]: it notes the first capturing
// group and writes Python-only group syntax in regexp2's form. It returns how
// many bytes of expr it wrote, or 0 when the "(" is to be copied as it is.
func translateGroup(expr string, i int, b *strings.Builder, first *firstGroup) int {
	rest := expr[i+1:]
	switch {
	case !strings.HasPrefix(rest, "?"):
		first.note(false, "")
	case strings.HasPrefix(rest, "?P<"):
		first.note(true, groupName(rest[3:], '>'))
		b.WriteString("(?<")
		return 4
	case strings.HasPrefix(rest, "?P="):
		if end := strings.IndexByte(rest, ')'); end > 3 {
			b.WriteString(`\k<` + rest[3:end] + ">")
			return 1 + end + 1
		}
	case strings.HasPrefix(rest, "?<") && len(rest) > 2 && rest[2] != '=' && rest[2] != '!':
		first.note(true, groupName(rest[2:], '>'))
	case strings.HasPrefix(rest, "?'"):
		first.note(true, groupName(rest[2:], '\''))
	case strings.HasPrefix(rest, "?#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			end = len(rest) - 1
		}
		b.WriteString(expr[i : i+1+end+1])
		return 1 + end + 1
	}
	return 0
}

// groupName reads a group name up to the closing delimiter.
func groupName(s string, close byte) string {
	if i := strings.IndexByte(s, close); i >= 0 {
		return s[:i]
	}
	return s
}
