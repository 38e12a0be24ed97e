package prompt

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// parseState is what one Parse call knows about its source: the normalised text
// (gonja's positions refer to it), where each {% block begins, and the first
// lexer error. The control-structure parsers of that Parse call read it to give
// positions to errors gonja reports without one.
type parseState struct {
	name        string
	src         string // normalised: \r\n and \r → \n, one trailing \n dropped
	blockStarts []int  // byte offsets of every "{%" token, ascending
	lexErrPos   int    // byte offset of the first lexer error, -1 if none
	lexErrMsg   string
	compilers   []interface{ compile() } // nodes with fast paths to prepare after rewrite
	toks        []*tokens.Token          // the token stream gonja parses (whitespace dropped), filled by prelex
	warnings    []Warning
	lexed       string // the text the lexer reads (see lexSource)
}

// normalize applies the newline handling of gonja's lexer (and Jinja's defaults:
// newline_sequence "\n", keep_trailing_newline false).
func normalize(src string) string {
	if strings.IndexByte(src, '\r') >= 0 {
		src = strings.ReplaceAll(src, "\r\n", "\n")
		src = strings.ReplaceAll(src, "\r", "\n")
	}
	return strings.TrimSuffix(src, "\n")
}

var blockOpeners = map[string]bool{
	"for": true, "if": true, "macro": true, "call": true, "filter": true, "with": true,
	"autoescape": true, "trans": true, "raw": true, "block": true,
}

// prelex lexes the source once before gonja parses it, to find the first lexer
// error with its real position (gonja's error tokens carry none), to index the
// blocks, and to reject templates nested or chained so deeply that parsing or
// evaluating them could overflow the stack.
func (ps *parseState) prelex(cfg *config.Config) *SyntaxError {
	ps.lexErrPos = -1
	if pos := lexerTrap(ps.src, cfg); pos >= 0 {
		return ps.errAt(pos, "a number followed by \".\" and a non-ASCII character cannot be read (put a space or quotes around it)")
	}
	ps.lexed = lexSource(ps.src)
	st, n := lexAll(ps.lexed, cfg)
	ps.toks = make([]*tokens.Token, 0, n)
	var prev *tokens.Token
	nest := nesting{setBlock: -1}
	for t := st.Current(); t != nil; t = st.Current() {
		ps.toks = append(ps.toks, t)
		switch t.Type {
		case tokens.Error:
			ps.lexErrPos, ps.lexErrMsg = ps.lexErrorAt(t, prev)
			return nil
		case tokens.EOF:
			return nil
		case tokens.BlockBegin:
			ps.blockStarts = append(ps.blockStarts, t.Pos)
		}
		if pos, msg := nest.token(t); msg != "" {
			return ps.errAt(pos, msg)
		}
		prev = t
		st.Next()
	}
	return nil
}

// nesting follows how deep the lexed tokens go: blocks, brackets, and the
// tokens of one tag.
type nesting struct {
	inTag      bool
	tagTokens  int
	tagStart   int
	brackets   int
	blocks     int
	afterBegin bool // the previous token opened a block tag
	setBlock   int  // offset of a pending {% set %} that may be a block set, or -1
	setAssign  bool
}

// token takes the next token; msg is not "" when the template goes deeper
// than the limits allow, at pos.
func (n *nesting) token(t *tokens.Token) (pos int, msg string) {
	switch t.Type {
	case tokens.BlockBegin, tokens.VariableBegin:
		if t.Type == tokens.BlockBegin {
			n.afterBegin = true
		}
		n.inTag, n.tagTokens, n.tagStart, n.brackets = true, 0, t.Pos, 0
		return 0, ""
	case tokens.BlockEnd, tokens.VariableEnd:
		if n.setBlock >= 0 && !n.setAssign {
			n.blocks++ // {% set x %} … {% endset %}
			if n.blocks > MaxNesting {
				return n.setBlock, fmt.Sprintf("blocks nested more than %d deep", MaxNesting)
			}
		}
		n.setBlock, n.setAssign, n.inTag = -1, false, false
	case tokens.Name:
		if pos, msg := n.name(t.Val); msg != "" {
			return pos, msg
		}
	case tokens.Assign:
		n.setAssign = true
	case tokens.LeftParenthesis, tokens.LeftBracket, tokens.LeftBrace:
		n.brackets++
		if n.brackets > MaxNesting {
			return t.Pos, fmt.Sprintf("brackets nested more than %d deep", MaxNesting)
		}
	case tokens.RightParenthesis, tokens.RightBracket, tokens.RightBrace:
		n.brackets--
	}
	n.afterBegin = false
	if n.inTag {
		n.tagTokens++
		if n.tagTokens > MaxTagTokens {
			return n.tagStart, fmt.Sprintf("tag has more than %d tokens", MaxTagTokens)
		}
	}
	return 0, ""
}

// name takes a name token: right after "{%" it may open or close a block.
func (n *nesting) name(v string) (pos int, msg string) {
	if !n.afterBegin {
		return 0, ""
	}
	switch {
	case v == "set":
		n.setBlock, n.setAssign = n.tagStart, false
	case blockOpeners[v]:
		n.blocks++
		if n.blocks > MaxNesting {
			return n.tagStart, fmt.Sprintf("blocks nested more than %d deep", MaxNesting)
		}
	case strings.HasPrefix(v, "end") && n.blocks > 0:
		n.blocks--
	}
	return 0, ""
}

// lexerTrap returns the offset of the first place where gonja's lexer would
// go wrong, or -1. Reading a number followed by "." it peeks at the next
// character and, when that does not continue the number, steps back by that
// character's width instead of the dot's: after a multi-byte character it
// lands before the dot, and then lexes the number again for ever, with a
// growing token list ({{ 0$0.é), or panics.
//
// The candidates are dots after a digit and before a multi-byte character
// that is not a digit (a digit continues the number).
// The source is lexed with the characters after the candidates replaced by
// ASCII letters of the same byte length, so the lexer cannot trip, and reads
// like the original up to the first candidate. A candidate is the trap when
// its dot comes right after a number token. When it is a dot after a name and
// the replaced character is not one a name continues with, the two lexings
// may part there: the rest is lexed again with that candidate as written
// (harmless: it is not the trap).
func lexerTrap(src string, cfg *config.Config) int {
	sites := trapCandidates(src)
	for relex := 0; len(sites) > 0; relex++ {
		if relex == 64 {
			return sites[0] // not worth more passes: refuse the template
		}
		toks := lexAllTokens(maskSites(src, sites), cfg)
		trap, k, parted := judgeSites(src, toks, sites)
		if trap >= 0 {
			return trap
		}
		if !parted {
			return -1 // every candidate judged, or the lexer stopped before the rest
		}
		sites = sites[k+1:]
	}
	return -1
}

// maskSites is src with the character after each candidate dot replaced by
// as many "a" as it has bytes.
func maskSites(src string, sites []int) string {
	masked := []byte(src)
	for _, s := range sites {
		_, w := utf8.DecodeRuneInString(src[s+1:])
		for j := s + 1; j <= s+w; j++ {
			masked[j] = 'a'
		}
	}
	return string(masked)
}

// judgeSites walks the tokens of the masked source: trap is the offset of
// the number before a candidate dot (-1: none found); otherwise k is the
// index of the candidate where the two lexings may part (parted), or
// len(sites) when all were judged.
func judgeSites(src string, toks []*tokens.Token, sites []int) (trap, k int, parted bool) {
	var before *tokens.Token
	for _, t := range toks {
		if k == len(sites) {
			break
		}
		for k < len(sites) && sites[k] < t.Pos {
			k++ // inside text, a string, a comment or a name: not a number
		}
		if k < len(sites) && t.Type == tokens.Dot && t.Pos == sites[k] {
			if before != nil && (before.Type == tokens.Integer || before.Type == tokens.Float) &&
				before.Pos+len(before.Val) == t.Pos {
				return before.Pos, k, false
			}
			if r, _ := utf8.DecodeRuneInString(src[t.Pos+1:]); r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return -1, k, true // the lexings may part here: lex the rest again
			}
			k++
		}
		before = t
	}
	return -1, k, false
}

// trapCandidates returns the offsets of the dots in src that follow a digit
// and precede a non-ASCII character that is not a digit.
func trapCandidates(src string) []int {
	var sites []int
	for off := 0; ; {
		j := strings.IndexByte(src[off:], '.')
		if j < 0 {
			break
		}
		i := off + j
		off = i + 1
		if i == 0 || i+1 >= len(src) {
			continue
		}
		// the rune before the dot (a valid sequence ends at a dot whichever
		// way the bytes before it are read)
		if prev, _ := utf8.DecodeLastRuneInString(src[:i]); !unicode.IsDigit(prev) {
			continue
		}
		if next, w := utf8.DecodeRuneInString(src[i+1:]); w > 1 && !unicode.IsDigit(next) {
			sites = append(sites, i)
		}
	}
	return sites
}

// lexAllTokens lexes src to the end. LexAll's stream stops at the first
// error token, but gonja's lexer goes on after some errors ({{ ! ...), so the
// tokens are read from the lexer itself. A panic of the lexer ends the list.
func lexAllTokens(src string, cfg *config.Config) []*tokens.Token {
	l := tokens.NewLexer(src, cfg)
	go func() {
		defer func() {
			if recover() != nil {
				close(l.Tokens)
			}
		}()
		l.Run() // closes l.Tokens when done
	}()
	var toks []*tokens.Token
	for t := range l.Tokens {
		toks = append(toks, t)
	}
	return toks
}

// lexErrorAt places a lexer error. The lexer reports where it stopped; the
// useful place is where the bad token starts: right after the previous token.
func (ps *parseState) lexErrorAt(t, prev *tokens.Token) (int, string) {
	msg := t.Val
	pos := t.Pos
	if prev != nil {
		pos = prev.Pos + len(prev.Val)
		if prev.Type == tokens.CommentBegin {
			pos = prev.Pos
		}
		for pos < len(ps.src) && strings.IndexByte(" \t\n", ps.src[pos]) >= 0 {
			pos++
		}
	}
	if pos > len(ps.src) {
		pos = len(ps.src)
	}
	switch {
	case msg == "unclosed comment":
		msg = "unclosed comment: missing #}"
	case pos < len(ps.src) && (ps.src[pos] == '\'' || ps.src[pos] == '"'):
		msg = "unterminated string literal"
	case strings.HasPrefix(msg, "Unexpected delimiter"), strings.HasPrefix(msg, "Unbalanced delimiters"):
		msg = strings.ToLower(msg[:1]) + msg[1:]
	}
	return pos, msg
}

// lineCol converts a byte offset of the normalised source to a 1-based line and
// a 1-based column counted in runes.
func (ps *parseState) lineCol(pos int) (int, int) {
	if pos > len(ps.src) {
		pos = len(ps.src)
	}
	if pos < 0 {
		pos = 0
	}
	before := ps.src[:pos]
	line := strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}

// runeCol converts gonja's (line, byte column) into (line, rune column).
func (ps *parseState) runeCol(line, byteCol int) int {
	start := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(ps.src[start:], '\n')
		if i < 0 {
			return byteCol
		}
		start += i + 1
	}
	end := start + byteCol - 1
	if end > len(ps.src) {
		end = len(ps.src)
	}
	if end < start {
		return byteCol
	}
	return utf8.RuneCountInString(ps.src[start:end]) + 1
}

func (ps *parseState) errAt(pos int, msg string) *SyntaxError {
	line, col := ps.lineCol(pos)
	return &SyntaxError{Name: ps.name, Line: line, Col: col, Msg: msg}
}

// blockStart returns the offset of the "{%" of the block whose arguments end
// just before next (the parser's current token when a block parser is called).
func (ps *parseState) blockStart(next *tokens.Token) int {
	end := len(ps.src)
	if next != nil && next.Type != tokens.EOF {
		end = next.Pos
	}
	i := sort.SearchInts(ps.blockStarts, end) // first start >= end
	if i == 0 {
		return 0
	}
	return ps.blockStarts[i-1]
}

// syntaxError converts a parse failure into a positioned SyntaxError.
func (ps *parseState) syntaxError(err error) *SyntaxError {
	var own *SyntaxError
	if errors.As(err, &own) {
		return own
	}
	var ge *parser.SyntaxError
	if errors.As(err, &ge) && ge.Line > 0 {
		line, col := ge.Line, ps.runeCol(ge.Line, ge.Column)
		if ps.lexErrPos >= 0 {
			ll, lc := ps.lineCol(ps.lexErrPos)
			if ll < line || ll == line && lc <= col {
				return ps.errAt(ps.lexErrPos, ps.lexErrMsg)
			}
		}
		return &SyntaxError{Name: ps.name, Line: line, Col: col, Msg: cleanSyntaxMessage(ge.Message)}
	}
	if ps.lexErrPos >= 0 {
		return ps.errAt(ps.lexErrPos, ps.lexErrMsg)
	}
	msg := err.Error()
	if ge != nil {
		msg = ge.Message
	}
	return &SyntaxError{Name: ps.name, Line: 1, Col: 1, Msg: cleanSyntaxMessage(msg)}
}

var (
	reUnknownTag = regexp.MustCompile(`^ControlStructure '(.*)' not found \(or beginning not provided\)$`)
	reGotToken   = regexp.MustCompile(`<Token\[(\w+)\] Val='(.*?)' Pos=\d+ Line=\d+ Col=\d+>`)
)

func cleanSyntaxMessage(msg string) string {
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	if msg != "" && msg[0] >= 'A' && msg[0] <= 'Z' && !strings.HasPrefix(msg, "ControlStructure") {
		msg = strings.ToLower(msg[:1]) + msg[1:]
	}
	if m := reUnknownTag.FindStringSubmatch(msg); m != nil {
		if strings.HasPrefix(m[1], "end") || m[1] == "else" || m[1] == "elif" {
			return fmt.Sprintf("unexpected {%% %s %%}: no matching block is open", m[1])
		}
		return fmt.Sprintf("unknown tag {%% %s %%}", m[1])
	}
	msg = reGotToken.ReplaceAllString(msg, "'$2'")
	return msg
}

// annotate gives a position to an error raised while parsing the block that
// starts at start. Errors that already carry a position keep it; errors caused by
// a lexer error are left for syntaxError, which reports the lexer error.
func (ps *parseState) annotate(err error, name string, start int, p *parser.Parser) error {
	var own *SyntaxError
	if errors.As(err, &own) {
		return err
	}
	var ge *parser.SyntaxError
	if errors.As(err, &ge) && strings.HasPrefix(ge.Message, "Unexpected EOF, expected tag ") {
		want := strings.TrimSuffix(strings.TrimPrefix(ge.Message, "Unexpected EOF, expected tag "), ".")
		return ps.errAt(start, fmt.Sprintf("{%% %s %%} is not closed: expected %s before the end of the template", name, want))
	}
	if ge != nil && ge.Line > 0 {
		if m := reUnknownTag.FindStringSubmatch(ge.Message); len(m) > 1 && strings.HasPrefix(m[1], "end") && m[1] != "end"+name {
			// an end tag of another block while this one is open
			line, col := ps.lineCol(start)
			return &SyntaxError{Name: ps.name, Line: ge.Line, Col: ps.runeCol(ge.Line, ge.Column),
				Msg: fmt.Sprintf("unexpected {%% %s %%}: {%% %s %%} at line %d col %d is not closed", m[1], name, line, col)}
		}
		return err
	}
	if cur := p.Current(); cur != nil && cur.Type == tokens.Error {
		return err
	}
	msg := err.Error()
	if ge != nil {
		msg = ge.Message
	}
	// gonja prefixes "Unable to parse controlStructure "x": "; keep the cause.
	if i := strings.LastIndex(msg, `": `); i >= 0 && strings.HasPrefix(msg, "Unable to parse controlStructure") {
		msg = msg[i+3:]
	}
	return ps.errAt(start, cleanSyntaxMessage(msg))
}
