package yamlbound

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Over is the answer of [Count] for an input with more nodes than the limit.
type Over struct {
	Limit int
	Line  int // the line where the count passed Limit (1-based)
	Bytes int // the input's size
}

func (o *Over) Error() string {
	return fmt.Sprintf("more than %s YAML nodes by line %d (a %s input); split it into smaller files",
		thousands(o.Limit), o.Line, size(o.Bytes))
}

// Check returns an *[Over] when [Count] finds more than limit nodes in data.
func Check(data []byte, limit int) error {
	if n, line := Count(data, limit); n > limit {
		return &Over{Limit: limit, Line: line, Bytes: len(data)}
	}
	return nil
}

// Count estimates the YAML nodes of data — scalars, aliases and collections —
// stopping as soon as the count passes limit; line is where it stopped (the
// last line when it did not). It reads the text line by line as YAML's lexer
// would at the level that matters for size: block scalars (| and >) count as
// one node whatever their length, quoted scalars (across lines too) as one,
// comments as none, a flow collection as itself plus its entries, a block
// sequence item or mapping key whose value starts on the next line as the
// collection it opens. The estimate is close to yaml.v3's own count for
// ordinary files (within a few per cent; tests compare them) and never far
// below it, so whatever it lets through fits the memory budget.
func Count(data []byte, limit int) (n, line int) {
	var s scanner
	s.limit = limit
	for start := 0; start < len(data) && s.n <= limit; {
		end := start
		for end < len(data) && data[end] != '\n' {
			end++
		}
		s.line++
		s.scanLine(data[start:end])
		start = end + 1
	}
	if s.n > 0 {
		s.n++ // the root collection
	}
	return s.n, max(s.line, 1)
}

// scanner is Count's state between lines.
type scanner struct {
	limit int
	n     int
	line  int
	flow  int  // depth of [ and { collections
	quote byte // the open quote of a scalar that goes on to the next line
	// block scalar: its content is every following line more indented than
	// the line that opened it (and blank lines).
	block       bool
	blockIndent int
}

// lineState is what scanLine knows of the line so far. A "- " item or "key:"
// whose value starts on a later line opens a collection; tokens counts the
// tokens since the line's last "- ". parent is the column of the node a block
// scalar on this line belongs to (the last "- " or key): its content is
// indented more than that. tokStart is where the last token started.
type lineState struct {
	tokens           int
	dashed           bool
	parent, tokStart int
}

func (s *scanner) scanLine(l []byte) {
	l, indent, i, ok := s.lineStart(l)
	if !ok {
		return
	}
	ls := lineState{parent: indent, tokStart: indent}
	for i < len(l) {
		c := l[i]
		if c != ' ' && c != '\t' && c != ':' {
			ls.tokStart = i
		}
		if next, ok := s.notNode(l, i); ok {
			i = next
			continue
		}
		switch {
		case c == '#' && (i == 0 || l[i-1] == ' ' || l[i-1] == '\t'):
			return
		case s.isIndicator(l, i):
			i = s.indicator(l, i, &ls)
		default:
			var stop bool
			if i, stop = s.node(l, i, ls.parent); stop {
				return
			}
			ls.tokens++
		}
	}
}

// notNode returns the index after l[i] when it starts no node: a blank, a
// ",", the end of a flow collection, an anchor or a tag.
func (s *scanner) notNode(l []byte, i int) (int, bool) {
	switch l[i] {
	case ' ', '\t', ',':
		return i + 1, true
	case ']', '}':
		s.flow = max(s.flow-1, 0)
		return i + 1, true
	case '&', '!':
		return skipWord(l, i), true // an anchor or a tag is not a node
	}
	return i, false
}

// lineStart trims l's line end and indentation, skips a document marker and
// the rest of a quoted scalar from the line before, and returns the line, its
// indentation and where its tokens start; ok is false for a line inside a
// block scalar.
func (s *scanner) lineStart(l []byte) (line []byte, indent, i int, ok bool) {
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	for indent < len(l) && l[indent] == ' ' {
		indent++
	}
	if s.block {
		if indent == len(l) || indent > s.blockIndent {
			return l, indent, 0, false
		}
		s.block = false
	}
	i = indent
	if i == 0 && s.quote == 0 && (hasPrefix(l, "---") || hasPrefix(l, "...")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t') {
		i = 3 // a document marker
	}
	if s.quote != 0 {
		i = s.skipQuoted(l, i, s.quote)
	}
	return l, indent, i, true
}

// isIndicator reports whether l[i] is a block "- " or "? ", or a ":" that
// ends a key.
func (s *scanner) isIndicator(l []byte, i int) bool {
	c := l[i]
	sep := i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t'
	if c == '-' || c == '?' {
		return s.flow == 0 && sep
	}
	return c == ':' && (sep || (s.flow > 0 && isFlowEnd(l[i+1])))
}

// indicator counts what the indicator at l[i] opens and returns the index
// after it.
func (s *scanner) indicator(l []byte, i int, ls *lineState) int {
	c := l[i]
	if c != ':' {
		if c == '-' && rest(l, i+1) {
			s.n++ // "-" alone: the item is a collection below
		}
		ls.tokens, ls.dashed, ls.parent = 0, c == '-', i
		return i + 1
	}
	if s.flow == 0 && rest(l, i+1) {
		s.n++ // "key:" alone: the value is a collection below
	}
	if ls.dashed && ls.tokens == 1 {
		s.n++ // "- key: ...": the item is a mapping
		ls.dashed = false
	}
	if s.flow == 0 {
		ls.parent = ls.tokStart
	}
	return i + 1
}

// node counts the node that starts at l[i] (a flow collection, a quoted,
// block or plain scalar, an alias) and returns the index after it; stop is
// true for a block scalar, which takes the rest of the line and the more
// indented lines after it (parent: the column it belongs to).
func (s *scanner) node(l []byte, i, parent int) (next int, stop bool) {
	s.n++
	switch c := l[i]; {
	case c == '[' || c == '{':
		s.flow++
		return i + 1, false
	case c == '"' || c == '\'':
		return s.skipQuoted(l, i+1, c), false
	case s.flow == 0 && (c == '|' || c == '>'):
		s.block, s.blockIndent = true, parent
		return len(l), true
	case c == '*':
		return skipWord(l, i), false
	}
	return s.skipPlain(l, i), false
}

// skipQuoted returns the index after the closing quote q at or after i; when
// the line ends first, the scalar goes on to the next line.
func (s *scanner) skipQuoted(l []byte, i int, q byte) int {
	s.quote = 0
	for i < len(l) {
		switch {
		case q == '"' && l[i] == '\\':
			i += 2
			continue
		case l[i] == q:
			if q == '\'' && i+1 < len(l) && l[i+1] == '\'' {
				i += 2
				continue
			}
			return i + 1
		}
		i++
	}
	s.quote = q
	return len(l)
}

// skipPlain returns the index after a plain scalar that starts at i.
func (s *scanner) skipPlain(l []byte, i int) int {
	for i < len(l) {
		c := l[i]
		switch {
		case c == ':' && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t' || (s.flow > 0 && isFlowEnd(l[i+1]))):
			return i
		case c == '#' && (l[i-1] == ' ' || l[i-1] == '\t'):
			return i
		case s.flow > 0 && (c == ',' || isFlowEnd(c) || c == '[' || c == '{'):
			return i
		}
		i++
	}
	return i
}

func skipWord(l []byte, i int) int {
	for i < len(l) && l[i] != ' ' && l[i] != '\t' && l[i] != ',' && !isFlowEnd(l[i]) {
		i++
	}
	return i
}

func isFlowEnd(c byte) bool { return c == ']' || c == '}' || c == ',' }

// rest reports whether only blanks or a comment follow index i.
func rest(l []byte, i int) bool {
	for ; i < len(l); i++ {
		switch l[i] {
		case ' ', '\t':
		case '#':
			return true
		default:
			return false
		}
	}
	return true
}

func hasPrefix(l []byte, p string) bool { return len(l) >= len(p) && string(l[:len(p)]) == p }

// ExpandedSize counts the nodes of n with every alias expanded, stopping as soon
// as the count passes limit. Sizes of anchored nodes are memoised, so the walk is
// linear in the document however deep the aliases nest; a cycle counts as too big.
func ExpandedSize(n *yaml.Node, limit int) int {
	memo := map[*yaml.Node]int{}
	var sizeOf func(n *yaml.Node, depth int) int
	sizeOf = func(n *yaml.Node, depth int) int {
		if n == nil {
			return 0
		}
		if depth > 1000 {
			return limit + 1
		}
		if n.Kind == yaml.AliasNode {
			return sizeOf(n.Alias, depth+1)
		}
		if s, ok := memo[n]; ok {
			return s
		}
		memo[n] = limit + 1
		total := 1
		for _, c := range n.Content {
			total += sizeOf(c, depth+1)
			if total > limit {
				break
			}
		}
		memo[n] = total
		return total
	}
	return sizeOf(n, 0)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func size(b int) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d-byte", b)
}
