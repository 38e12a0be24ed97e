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
	note := func(named bool, name string) {
		if !first.found {
			first = firstGroup{found: true, named: named, name: name}
		}
	}
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
			rest := expr[i+1:]
			switch {
			case !strings.HasPrefix(rest, "?"):
				note(false, "")
			case strings.HasPrefix(rest, "?P<"):
				name := groupName(rest[3:], '>')
				note(true, name)
				b.WriteString("(?<")
				i += 4
				continue
			case strings.HasPrefix(rest, "?P="):
				if end := strings.IndexByte(rest, ')'); end > 3 {
					b.WriteString(`\k<` + rest[3:end] + ">")
					i += 1 + end + 1
					continue
				}
			case strings.HasPrefix(rest, "?<") && len(rest) > 2 && rest[2] != '=' && rest[2] != '!':
				note(true, groupName(rest[2:], '>'))
			case strings.HasPrefix(rest, "?'"):
				note(true, groupName(rest[2:], '\''))
			case strings.HasPrefix(rest, "?#"):
				end := strings.IndexByte(rest, ')')
				if end < 0 {
					end = len(rest) - 1
				}
				b.WriteString(expr[i : i+1+end+1])
				i += 1 + end + 1
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), first
}

// groupName reads a group name up to the closing delimiter.
func groupName(s string, close byte) string {
	if i := strings.IndexByte(s, close); i >= 0 {
		return s[:i]
	}
	return s
}
