package cognition

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/syntax"

	"github.com/cogloop/cogloop/internal/perf"
)

// A prefilter is a necessary condition for a match, found by reading the
// expression: a set of literal strings one of which every match contains or,
// when prefix is set, starts with. A text that holds none of them cannot match,
// so the regex engine is not run on it; with a prefix set the engine is run only
// where one of the literals occurs (see [Pattern.find]).
//
// The analysis never has to be complete, only sound: any construct it does not
// read exactly like regexp2 does makes it give up (no prefilter), and every other
// construct that it cannot turn into literals widens the condition. Literals of a
// case-insensitive expression are lower-cased rune by rune with
// [unicode.ToLower], as regexp2 lower-cases both the expression and the text, and
// are looked for in the lower-cased text.
type prefilter struct {
	lits   []string
	rare   []int // per literal, the offset of its rarest byte (see indexRare)
	fold   bool  // lits are lower-case: search the lower-cased text
	prefix bool  // every match starts with one of lits

	index *litIndex // set by NewExtractor: the index of its texts' literals
	mask  uint64    // the bits of lits in index
}

// newPrefilter picks each literal's rarest byte.
func newPrefilter(lits []string, fold, prefix bool) prefilter {
	rare := make([]int, len(lits))
	for i, lit := range lits {
		for j := 1; j < len(lit); j++ {
			if byteRank(lit[j]) < byteRank(lit[rare[i]]) {
				rare[i] = j
			}
		}
	}
	return prefilter{lits: lits, rare: rare, fold: fold, prefix: prefix}
}

// byteRank is a rough frequency of a byte in English prose and model output:
// lower is rarer.
func byteRank(c byte) int {
	const common = "etaoinshrdlcumwfgypbvkjxqz" // letters, most frequent first
	switch {
	case c == ' ':
		return 255
	case 'a' <= c && c <= 'z':
		return 250 - 6*strings.IndexByte(common, c)
	case c == '\n' || c == ',' || c == '.':
		return 140
	case 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '\'':
		return 60
	case c >= utf8.RuneSelf:
		return 50
	default:
		return 30
	}
}

// indexRare is strings.Index(s, lit) that first looks for the literal's rare
// byte (at offset k) with IndexByte, which skips through a text much faster
// than a search for a frequent first byte. After many false hits it leaves the
// rest to strings.Index.
func indexRare(s, lit string, k int) int {
	if len(lit) == 1 {
		return strings.IndexByte(s, lit[0])
	}
	c := lit[k]
	for i, misses := k, 0; i < len(s); misses++ {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		p := i + j - k
		if p+len(lit) > len(s) {
			return -1
		}
		if s[p:p+len(lit)] == lit {
			return p
		}
		if misses == 16 {
			if n := strings.Index(s[p+1:], lit); n >= 0 {
				return p + 1 + n
			}
			return -1
		}
		i += j + 1
	}
	return -1
}

// Bounds of the analysis.
const (
	maxLitSet     = 16 // literals in a usable prefilter
	maxExactSet   = 64 // strings in a set while building
	maxExactLen   = 64 // bytes in one string of a set
	maxClassChars = 8  // a larger character class counts as "any character"
	maxLitDepth   = 64 // group nesting read before giving up
	minPrefixLen  = 2  // shortest literal worth anchored attempts (else the set only gates the scan)
)

// litInfo describes the strings one piece of an expression can match. nil sets
// mean "unknown"; a set holding "" constrains nothing.
type litInfo struct {
	exact  []string // the piece matches exactly one of these
	prefix []string // every match of the piece starts with one of these
	inner  []string // every match of the piece contains one of these
}

var (
	anyChar   = litInfo{}                    // one character of a large or unknown set
	zeroWidth = litInfo{exact: []string{""}} // an assertion, or nothing
)

// normal fills prefix and inner from exact.
func (l litInfo) normal() litInfo {
	if l.exact != nil {
		l.prefix = l.exact
		l.inner = l.exact
	}
	return l
}

// analysis is what reading an expression found.
type analysis struct {
	pre    prefilter
	hasPre bool
	// fast is an equivalent expression that regexp2 runs faster (see
	// [lineTail]); "" when there is none.
	fast string
	// tail, when not nil, splits the expression into a head and a captured
	// line idiom that ends it (see [lineTail]).
	tail *tailSplit
}

// analyze reads src (the translated, regexp2-syntax expression that regexp2 has
// compiled). Anything it does not read exactly like regexp2 gives an empty
// analysis.
func analyze(src string, ignoreCase bool) (a analysis) {
	defer func() {
		if recover() != nil {
			a = analysis{} // a bug here must not cost the pattern: it runs as written
		}
	}()
	if !utf8.ValidString(src) {
		return analysis{}
	}
	p := litParser{s: []rune(src), ci: ignoreCase, anyCI: ignoreCase}
	info := p.alternation(0)
	if p.failed || p.i != len(p.s) {
		return analysis{}
	}
	a.pre, a.hasPre = p.prefilter(info)
	a.fast, a.tail = p.lineTail()
	return a
}

// prefilter turns the analysis of the whole expression into a prefilter.
func (p *litParser) prefilter(info litInfo) (prefilter, bool) {
	if perf.Off(perf.Prefilter) {
		return prefilter{}, false
	}
	info = info.normal()
	lower := func(set []string) []string {
		if set == nil || !p.anyCI {
			return set
		}
		out := make([]string, len(set))
		for i, s := range set {
			out[i] = strings.Map(unicode.ToLower, s)
		}
		return out
	}
	prefix := usable(prune(lower(info.prefix), strings.HasPrefix))
	inner := usable(prune(lower(info.inner), strings.Contains))
	if prefix != nil && minLen(prefix) >= minPrefixLen {
		return newPrefilter(prefix, p.anyCI, true), true
	}
	best := pick(prefix, inner)
	if best == nil {
		return prefilter{}, false
	}
	return newPrefilter(best, p.anyCI, false), true
}

// litParser reads the subset of regexp2's (.NET) syntax that the analysis
// understands, mirroring regexp2's parser; anything else sets failed.
type litParser struct {
	s      []rune
	i      int
	ci     bool // IgnoreCase is on at this point of the expression
	anyCI  bool // IgnoreCase is on somewhere
	failed bool
	tail   []int // where each unit of the last top-level branch starts, quantifier included
	top    int   // the number of top-level branches
}

// OrKa's "rest of the line" idiom ends most extraction patterns:
// "(.+?)(?:\n|$)". regexp2 runs the lazy loop one character at a time, trying
// the line end after each, about 100 ns a character. When it is the very end of
// the expression (nothing follows, so its first success ends the match), the
// lazy loop stops at the first position after its minimum where the line end
// holds. If the line end holds at every "\n" (one branch is "\n", the others
// are end anchors), that is the first "\n" or the end of the text after the
// minimum, which is where a greedy "[^\n]*" stops; and the greedy loop never
// needs to give a character back, because before that position the line end
// cannot hold. So the two forms find the same match with the same groups. The
// first character of "(.+?)" keeps its "." (it may be a "\n" under DotAll).
var (
	lazyLines = map[string]string{
		`(.+?)`: `(.[^\n]*)`,
		`(.*?)`: `([^\n]*)`,
		`.+?`:   `.[^\n]*`,
		`.*?`:   `[^\n]*`,
	}
	lineEnds = func() map[string]bool {
		m := make(map[string]bool)
		for _, nl := range []string{`\n`, "\n"} {
			for _, end := range []string{`$`, `\z`} {
				for _, open := range []string{`(?:`, `(`} {
					m[open+nl+`|`+end+`)`] = true
					m[open+end+`|`+nl+`)`] = true
				}
			}
		}
		return m
	}()
)

// lineTail returns the expression with a final lazy line idiom replaced by its
// greedy form, or "". When the idiom is captured, ends the only branch of the
// expression and its line end tries "\n" first, it also returns the split of
// the expression into its head and that tail (see [tailSplit]).
func (p *litParser) lineTail() (string, *tailSplit) {
	n := len(p.tail)
	if n < 2 {
		return "", nil
	}
	lazy := string(p.s[p.tail[n-2]:p.tail[n-1]])
	end := string(p.s[p.tail[n-1]:])
	fast, ok := lazyLines[lazy]
	if !ok || !lineEnds[end] {
		return "", p.classTail()
	}
	head := string(p.s[:p.tail[n-2]])
	var split *tailSplit
	if p.top == 1 && (lazy == `(.+?)` || lazy == `(.*?)`) && nlFirst[end] {
		split = &tailSplit{headSrc: head, empty: lazy == `(.*?)`}
	}
	return head + fast + end, split
}

// classTail returns the split of an expression of one branch that ends with a
// captured run of a small ASCII class, "SCORE:\s*([0-9.]+)", or nil.
func (p *litParser) classTail() *tailSplit {
	n := len(p.tail)
	if p.top != 1 || n < 2 {
		return nil
	}
	last := string(p.s[p.tail[n-1]:])
	if !strings.HasPrefix(last, "([") || !strings.HasSuffix(last, "]+)") {
		return nil
	}
	set, ok := asciiClass(last[2 : len(last)-3])
	if !ok {
		return nil
	}
	return &tailSplit{headSrc: string(p.s[:p.tail[n-1]]), class: set}
}

// asciiClass reads the inside of a character class made of ASCII characters
// that are no letters and ranges of digits ("0-9."), or returns false.
func asciiClass(src string) (*[256]bool, bool) {
	var set [256]bool
	if src == "" || src[0] == '^' {
		return nil, false
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case i+2 < len(src) && src[i+1] == '-' && '0' <= c && c <= src[i+2] && src[i+2] <= '9':
			for d := c; d <= src[i+2]; d++ {
				set[d] = true
			}
			i += 2
		case c < utf8.RuneSelf && c > ' ' && !unicode.IsLetter(rune(c)) && !strings.ContainsRune(`\[]^-`, rune(c)):
			set[c] = true
		default:
			return nil, false
		}
	}
	return &set, true
}

// nlFirst are the line ends whose first branch is "\n", so that at a "\n"
// they take it whatever "$" means (Multiline or not).
var nlFirst = map[string]bool{`(?:\n|$)`: true, `(?:\n|\z)`: true, "(?:\n|$)": true, "(?:\n|\\z)": true}

// fail gives up the analysis; what it returns is never used.
func (p *litParser) fail() litInfo {
	p.failed = true
	return litInfo{}
}

func (p *litParser) more() bool { return p.i < len(p.s) }

func (p *litParser) peek(k int) rune {
	if p.i+k < len(p.s) {
		return p.s[p.i+k]
	}
	return -1
}

// alternation reads branches separated by "|" up to ")" or the end.
func (p *litParser) alternation(depth int) litInfo {
	if depth > maxLitDepth {
		return p.fail()
	}
	var branches []litInfo
	for {
		branches = append(branches, p.concatenation(depth))
		if p.failed {
			return litInfo{}
		}
		if p.peek(0) != '|' {
			break
		}
		p.i++
	}
	if depth == 0 {
		p.top = len(branches)
	}
	if len(branches) == 1 {
		return branches[0]
	}
	return alternate(branches)
}

// concatenation reads quantified atoms up to "|", ")" or the end.
func (p *litParser) concatenation(depth int) litInfo {
	var items []litInfo
	if depth == 0 {
		p.tail = p.tail[:0]
	}
	for p.more() && !p.failed {
		if c := p.peek(0); c == '|' || c == ')' {
			break
		}
		if depth == 0 {
			p.tail = append(p.tail, p.i)
		}
		atom, isUnit := p.atom(depth)
		if p.failed {
			return litInfo{}
		}
		if !isUnit { // inline options: nothing to quantify
			continue
		}
		if p.trueQuantifier() {
			min, max := p.quantifier()
			if p.failed {
				return litInfo{}
			}
			if p.peek(0) == '?' {
				p.i++ // lazy: the same strings
			}
			if p.trueQuantifier() { // "nested quantifier": regexp2 rejects it
				return p.fail()
			}
			atom = repeat(atom.normal(), min, max)
		}
		items = append(items, atom.normal())
	}
	return concatenate(items)
}

// atom reads one unit. isUnit is false for an inline option group "(?i)".
func (p *litParser) atom(depth int) (info litInfo, isUnit bool) {
	c := p.s[p.i]
	switch c {
	case '(':
		return p.group(depth)
	case '[':
		p.i++
		return p.class(), true
	case '\\':
		p.i++
		return p.escape(), true
	case '^', '$':
		p.i++
		return zeroWidth, true
	case '.':
		p.i++
		return anyChar, true
	case '*', '+', '?':
		return p.fail(), true // quantifier following nothing: regexp2 rejects it
	case '{':
		if p.trueQuantifier() {
			return p.fail(), true
		}
	}
	p.i++
	return p.char(c), true
}

// char is a literal character.
func (p *litParser) char(c rune) litInfo {
	return litInfo{exact: []string{string(c)}}
}

// group reads "(" … ")".
func (p *litParser) group(depth int) (litInfo, bool) {
	p.i++ // "("
	saved := p.ci
	kind := 'c' // c capture or plain group, z zero-width assertion
	if p.peek(0) == '?' {
		switch kind = p.groupKind(); kind {
		case 0:
			return p.fail(), true
		case 'o': // (?i): the rest of the enclosing group
			return litInfo{}, false
		}
	}
	inner := p.alternation(depth + 1)
	if p.failed {
		return litInfo{}, true
	}
	if p.peek(0) != ')' {
		return p.fail(), true
	}
	p.i++
	p.ci = saved
	if kind == 'z' {
		return zeroWidth, true
	}
	return inner, true
}

// groupKind reads what follows "(?" and moves past it: 'c' for a group whose
// match is one of its content's ((?:, (?> atomic, named), 'z' for a
// zero-width assertion, 'o' for inline options that hold to the end of the
// enclosing group, 0 for what the analysis does not mirror (balancing
// groups, comments, conditionals, x mode, "(?)" …).
func (p *litParser) groupKind() rune {
	switch c1 := p.peek(1); {
	case c1 == ':' || c1 == '>':
		p.i += 2
		return 'c'
	case c1 == '=' || c1 == '!':
		p.i += 2
		return 'z'
	case c1 == '<' && (p.peek(2) == '=' || p.peek(2) == '!'):
		p.i += 3
		return 'z'
	case c1 == '<' || c1 == '\'':
		return p.groupName(c1)
	}
	return p.inlineOptions()
}

// groupName reads the name of (?<name> or (?'name' after its opening quote
// open.
func (p *litParser) groupName(open rune) rune {
	closing := '>'
	if open == '\'' {
		closing = '\''
	}
	j := p.i + 2
	for j < len(p.s) && syntax.IsWordChar(p.s[j]) {
		j++
	}
	if j == p.i+2 || j >= len(p.s) || p.s[j] != closing {
		return 0
	}
	p.i = j + 1
	return 'c'
}

// inlineOptions reads (?imnsx-imnsx) or (?imnsx-imnsx: and sets IgnoreCase
// as the options say.
func (p *litParser) inlineOptions() rune {
	j, ci := p.optionLetters(p.i + 1)
	if j == p.i+1 || j >= len(p.s) || (p.s[j] != ')' && p.s[j] != ':') {
		return 0
	}
	p.anyCI = p.anyCI || ci
	p.ci = ci
	p.i = j + 1
	if p.s[j] == ')' {
		return 'o'
	}
	return 'c'
}

// optionLetters reads option letters from j and returns where they end and
// whether IgnoreCase is on after them.
func (p *litParser) optionLetters(j int) (end int, ci bool) {
	on, ci := true, p.ci
	for ; j < len(p.s); j++ {
		switch p.s[j] {
		case '-':
			on = false
		case '+':
			on = true
		case 'i', 'I':
			ci = on
		case 'm', 'M', 'n', 'N', 's', 'S':
		default:
			return j, ci
		}
	}
	return j, ci
}

// escape reads what follows a backslash outside a class.
func (p *litParser) escape() litInfo {
	if !p.more() {
		return p.fail()
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case 'b', 'B', 'A', 'Z', 'z':
		return zeroWidth
	case 'w', 'W', 's', 'S', 'd', 'D':
		return anyChar
	case 'p', 'P':
		if !p.property() {
			return p.fail()
		}
		return anyChar
	}
	r, ok := p.charEscape(c, false)
	if !ok {
		return p.fail()
	}
	return p.char(r)
}

// property skips the name of \p{Name} or \pL.
func (p *litParser) property() bool {
	if p.peek(0) != '{' {
		if !p.more() {
			return false
		}
		p.i++
		return true
	}
	for j := p.i + 1; j < len(p.s); j++ {
		if p.s[j] == '}' {
			p.i = j + 1
			return true
		}
	}
	return false
}

// charEscape is regexp2's scanCharEscape for the escapes the analysis accepts:
// control letters and escaped punctuation. Hex, unicode, control-character,
// octal and back-reference escapes are refused.
func (p *litParser) charEscape(c rune, inClass bool) (rune, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', inClass
	case 'e':
		return '\x1b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	case '<', '\'': // \<name> and \'name' are back-references
		return 0, false
	}
	if syntax.IsWordChar(c) {
		return 0, false
	}
	return c, true
}

// class reads a character class after its "[". A small positive class of plain
// characters is a set of one-character strings; anything else is anyChar.
func (p *litParser) class() litInfo {
	negate := false
	if p.peek(0) == '^' {
		negate = true
		p.i++
	}
	var cc classChars
	for first := true; ; first = false {
		if !p.more() {
			return p.fail()
		}
		c := p.s[p.i]
		p.i++
		switch {
		case c == ']' && !first:
			if cc.inRange {
				return p.fail()
			}
			if negate || cc.big {
				return anyChar
			}
			return p.classSet(cc.chars)
		case c == '[':
			return p.fail() // subtraction, [:name:] or a literal "[": not worth mirroring
		case c == '\\':
			r, char, ok := p.classEscape(&cc)
			if !ok || (char && !p.classChar(&cc, r, true, first)) {
				return p.fail()
			}
		default:
			if !p.classChar(&cc, c, false, first) {
				return p.fail()
			}
		}
	}
}

// classChar adds c, a character of the class (translated: written as an
// escape), alone, as the end of a range, or as its start when a "-" follows;
// false for what the analysis refuses.
func (p *litParser) classChar(cc *classChars, c rune, translated, first bool) bool {
	switch {
	case cc.inRange:
		cc.inRange = false
		if cc.prev > c {
			return false
		}
		cc.add(cc.prev, c)
	case p.i+1 < len(p.s) && p.s[p.i] == '-' && p.s[p.i+1] != ']':
		cc.prev, cc.inRange = c, true
		p.i++
	case c == '-' && !translated && p.peek(0) == '[' && !first:
		return false
	default:
		cc.add(c, c)
	}
	return true
}

// classChars collects a class's characters; big when there are more than
// maxClassChars or the class has a class escape (\d, \p{…}).
type classChars struct {
	chars   []rune
	big     bool
	inRange bool // a range's "-" was read; prev is its start
	prev    rune
}

func (cc *classChars) add(lo, hi rune) {
	if cc.big || hi-lo >= maxClassChars {
		cc.big = true
		return
	}
	for c := lo; c <= hi; c++ {
		cc.chars = append(cc.chars, c)
	}
	if len(cc.chars) > maxClassChars {
		cc.big = true
	}
}

// classEscape reads the escape after a "\" in a class: a class escape (\d,
// \p{…}), an escaped "-", or a character, which it returns with char true.
// ok is false for what the analysis refuses (a class escape ending a range).
func (p *litParser) classEscape(cc *classChars) (r rune, char, ok bool) {
	inRange := cc.inRange
	if !p.more() {
		return 0, false, false
	}
	e := p.s[p.i]
	p.i++
	switch e {
	case 'd', 'D', 's', 'S', 'w', 'W':
		cc.big = true
		return 0, false, !inRange
	case 'p', 'P':
		cc.big = true
		return 0, false, !inRange && p.property()
	case '-':
		cc.add('-', '-')
		return 0, false, !inRange
	}
	r, ok = p.charEscape(e, true)
	return r, true, ok
}

// classSet turns the characters of a small class into one-character strings.
// Under IgnoreCase regexp2 matches the lower-cased text character against the
// class plus its lower-case mapping; for ASCII characters that is covered by
// each character and its unicode.ToLower (analyzeLiterals lower-cases the
// set). Non-ASCII classes under IgnoreCase are left as anyChar.
func (p *litParser) classSet(chars []rune) litInfo {
	if len(chars) == 0 {
		return anyChar
	}
	out := make([]string, 0, len(chars))
	for _, c := range chars {
		if p.ci && c >= utf8.RuneSelf {
			return anyChar
		}
		out = append(out, string(c))
	}
	return litInfo{exact: dedupe2(out)}
}

// trueQuantifier is regexp2's isTrueQuantifier at the current position.
func (p *litParser) trueQuantifier() bool {
	if !p.more() {
		return false
	}
	start := p.i
	ch := p.s[start]
	if ch != '{' {
		return ch == '*' || ch == '+' || ch == '?'
	}
	n := len(p.s) - start
	pos := start
	pos, n, ch = p.digits(pos, n, ch)
	if n == 0 || pos-start == 1 {
		return false
	}
	if ch == '}' {
		return true
	}
	if ch != ',' {
		return false
	}
	_, n, ch = p.digits(pos, n, ch)
	return n > 0 && ch == '}'
}

// digits is isTrueQuantifier's digit loop: it moves pos over digits while n,
// the characters left, counts down, and returns pos, n and the character at pos.
func (p *litParser) digits(pos, n int, ch rune) (int, int, rune) {
	for {
		n--
		if n <= 0 {
			return pos, n, ch
		}
		pos++
		ch = p.s[pos]
		if ch < '0' || ch > '9' {
			return pos, n, ch
		}
	}
}

// quantifier reads a quantifier that trueQuantifier accepted.
func (p *litParser) quantifier() (min, max int) {
	c := p.s[p.i]
	p.i++
	switch c {
	case '*':
		return 0, math.MaxInt32
	case '+':
		return 1, math.MaxInt32
	case '?':
		return 0, 1
	}
	min = p.decimal()
	max = min
	if p.peek(0) == ',' {
		p.i++
		if p.peek(0) == '}' {
			max = math.MaxInt32
		} else {
			max = p.decimal()
		}
	}
	if p.peek(0) != '}' || min > max {
		p.fail()
		return 0, 0
	}
	p.i++
	return min, max
}

func (p *litParser) decimal() int {
	v := 0
	for p.more() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		if v < math.MaxInt32/10 {
			v = v*10 + int(p.s[p.i]-'0')
		} else {
			v = math.MaxInt32
		}
		p.i++
	}
	return v
}

// repeat is x{min,max}.
func repeat(x litInfo, min, max int) litInfo {
	switch {
	case len(x.exact) == 1 && x.exact[0] == "":
		return zeroWidth
	case max == 1 && x.exact != nil:
		if min == 0 {
			return litInfo{exact: dedupe2(append([]string{""}, x.exact...))}
		}
		return x
	case min == 0:
		return litInfo{}
	}
	// At least one repetition: a match starts with, and contains, a match of x.
	return litInfo{prefix: x.prefix, inner: x.inner}
}

// concatenate combines the pieces of a sequence.
func concatenate(items []litInfo) litInfo {
	if len(items) == 0 {
		return zeroWidth
	}
	if len(items) == 1 {
		return items[0]
	}
	acc := []string{""}
	exact := true
	var prefix []string
	for _, it := range items {
		if it.exact != nil {
			if next := cross(acc, it.exact); next != nil {
				acc = next
				continue
			}
			prefix = acc
		} else if next := cross(acc, it.prefix); it.prefix != nil && next != nil {
			prefix = next
		} else {
			prefix = acc
		}
		exact = false
		break
	}
	if exact {
		return litInfo{exact: acc}.normal()
	}
	// Inner candidates: the prefix, every run of exact pieces (extended by the
	// prefix of the piece after it), and every piece's own inner set.
	cands := [][]string{prefix}
	run := []string{""}
	flush := func(next []string) {
		if len(run) == 1 && run[0] == "" {
			return
		}
		if next != nil {
			if ext := cross(run, next); ext != nil {
				cands = append(cands, ext)
				return
			}
		}
		cands = append(cands, run)
	}
	for _, it := range items {
		if it.exact != nil {
			if next := cross(run, it.exact); next != nil {
				run = next
				continue
			}
			flush(nil)
			run = it.exact
			continue
		}
		flush(it.prefix)
		run = []string{""}
		cands = append(cands, it.inner)
	}
	flush(nil)
	return litInfo{prefix: prefix, inner: pick(cands...)}
}

// alternate combines the branches of an alternation.
func alternate(branches []litInfo) litInfo {
	var exact, prefix, inner []string
	exactOK, prefixOK, innerOK := true, true, true
	for _, b := range branches {
		b = b.normal()
		exactOK = exactOK && b.exact != nil
		prefixOK = prefixOK && b.prefix != nil
		in := pick(b.inner, b.prefix)
		innerOK = innerOK && in != nil
		exact = append(exact, b.exact...)
		prefix = append(prefix, b.prefix...)
		inner = append(inner, in...)
	}
	var out litInfo
	if exactOK && len(exact) <= maxExactSet {
		return litInfo{exact: dedupe2(exact)}.normal()
	}
	if prefixOK && len(prefix) <= maxExactSet {
		out.prefix = dedupe2(prefix)
	}
	if innerOK && len(inner) <= maxExactSet {
		out.inner = dedupe2(inner)
	}
	return out
}

// cross is every a+b, in the order a backtracking engine tries them (each a,
// then each b), without repeats; nil when the result would be too large.
func cross(as, bs []string) []string {
	if len(as)*len(bs) > maxExactSet {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			if len(a)+len(b) > maxExactLen {
				return nil
			}
			out = append(out, a+b)
		}
	}
	return dedupe2(out)
}

// dedupe2 removes repeated strings, keeping the first.
func dedupe2(set []string) []string {
	out := set[:0:0]
	for i, s := range set {
		dup := false
		for _, t := range set[:i] {
			if s == t {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// prune drops every string that already covers another one (has it as a
// prefix or contains it): the shorter one is a weaker, sufficient condition.
func prune(set []string, covers func(s, t string) bool) []string {
	if set == nil {
		return nil
	}
	set = dedupe2(set)
	out := set[:0:0]
	for i, s := range set {
		keep := true
		for j, t := range set {
			if i != j && covers(s, t) && (len(t) < len(s) || (len(t) == len(s) && j < i)) {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// usable returns set when it is a prefilter: not too large, no empty string.
func usable(set []string) []string {
	if len(set) == 0 || len(set) > maxLitSet {
		return nil
	}
	for _, s := range set {
		if s == "" {
			return nil
		}
	}
	return set
}

func minLen(set []string) int {
	n := math.MaxInt
	for _, s := range set {
		n = min(n, len(s))
	}
	return n
}

// pick returns the most selective usable set: longest shortest literal, then
// fewest literals.
func pick(sets ...[]string) []string {
	var best []string
	for _, s := range sets {
		s = usable(prune(s, strings.Contains))
		if s == nil {
			continue
		}
		if best == nil || minLen(s) > minLen(best) || (minLen(s) == minLen(best) && len(s) < len(best)) {
			best = s
		}
	}
	return best
}
