package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// A streamed reply arrives as one chat.completion.chunk per piece (OpenAI
// sends a few characters a piece), and decoding each with encoding/json into
// sseChunk was a quarter of a streaming call's CPU. scanChunk reads the
// common shape of a chunk in one pass without reflection or allocation (but
// for the text itself): one choice, a delta with a plain string content. It
// answers only when it is sure of the same result encoding/json would give
// (the input is valid JSON, every key is spelled exactly, none repeats); on
// anything else it says so and take decodes with encoding/json as before
// (FuzzScanChunk holds the two to the same answers).

// chunkFields is what take reads of a chunk.
type chunkFields struct {
	content string
	finish  bool // a non-empty finish_reason
	more    bool // tool_calls, function_call or usage set: langchaingo needs the line
}

// maxScanDepth bounds the nesting scanChunk skips over; deeper input goes to
// encoding/json.
const maxScanDepth = 32

// jsonScan reads JSON text strictly (what encoding/json accepts, nothing else).
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// next skips whitespace and reports whether the next byte is c (then consumed).
func (s *jsonScan) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// lit consumes the literal word (true, false, null).
func (s *jsonScan) lit(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// digits consumes one or more digits.
func (s *jsonScan) digits() bool {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// number consumes a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() bool {
	if s.i < len(s.b) && s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case !s.digits():
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		return s.digits()
	}
	return true
}

// str consumes a string at s.i (its opening quote) and returns it with its
// quotes, and whether it has no escape (its bytes between the quotes are
// its text once checked as UTF-8).
func (s *jsonScan) str() (raw []byte, plain, ok bool) {
	start := s.i
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	s.i++
	if raw, ok := s.plainStr(start); ok {
		return raw, true, true
	}
	plain = true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start:s.i], plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			if !s.escape() {
				return nil, false, false
			}
		default:
			s.i++
		}
	}
	return nil, false, false
}

// plainStr consumes the rest of a string without escapes (the common case)
// with the bytes package's vector search; ok is false (nothing consumed)
// when it has an escape or is cut off, for str's byte-by-byte reading.
func (s *jsonScan) plainStr(start int) ([]byte, bool) {
	rest := s.b[s.i:]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	for _, c := range rest[:end] {
		if c < 0x20 {
			return nil, false
		}
	}
	s.i += end + 1
	return s.b[start:s.i], true
}

// escape consumes one escape sequence at s.i (its backslash).
func (s *jsonScan) escape() bool {
	s.i++
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return true
	case 'u':
		if s.i+5 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+1 : s.i+5] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 5
		return true
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skip consumes any value; false when it is not valid JSON or nests deeper
// than depth.
func (s *jsonScan) skip(depth int) bool {
	s.ws()
	if s.i >= len(s.b) || depth <= 0 {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, _, ok := s.str()
		return ok
	case '{':
		return s.object(func([]byte) bool { return s.skip(depth - 1) })
	case '[':
		return s.array(func() bool { return s.skip(depth - 1) })
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		return s.number()
	}
}

// object consumes an object, calling member with each key (without its
// quotes, only keys without escapes: others fail) to consume the value.
func (s *jsonScan) object(member func(key []byte) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		s.ws()
		raw, plain, ok := s.str()
		if !ok || !plain || !s.next(':') || !member(raw[1:len(raw)-1]) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// array consumes an array, calling elem to consume each element.
func (s *jsonScan) array(elem func() bool) bool {
	if !s.next('[') {
		return false
	}
	if s.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.next(']') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// null consumes null if it comes next.
func (s *jsonScan) null() bool {
	s.ws()
	return s.lit("null")
}

// set consumes a value and reports whether it is set (not null), as isSet
// does for a json.RawMessage.
func (s *jsonScan) set() (isSet, ok bool) {
	if s.null() {
		return false, true
	}
	return true, s.skip(maxScanDepth)
}

// text consumes a string or null and returns its text as encoding/json would.
func (s *jsonScan) text() (string, bool) {
	if s.null() {
		return "", true
	}
	raw, plain, ok := s.str()
	if !ok {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if plain && utf8.Valid(body) {
		return string(body), true
	}
	var t string // escapes or invalid UTF-8: encoding/json's own reading
	return t, json.Unmarshal(raw, &t) == nil
}

// known reports whether key is one of names; ok is false when key is not
// but encoding/json would match it to one (case-insensitive matching, which
// scanChunk leaves to encoding/json), or is repeated (seen records them).
func known(key []byte, seen *uint8, names ...string) (idx int, ok bool) {
	for i, n := range names {
		if string(key) == n {
			if *seen&(1<<i) != 0 {
				return -1, false
			}
			*seen |= 1 << i
			return i, true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && strings.EqualFold(string(key), n) {
			return -1, false
		}
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return -1, false // a non-ASCII key may fold to one of names
		}
	}
	return -1, true
}

// scanChunk reads a chunk with one choice; ok is false when encoding/json
// must decide (anything else, or any doubt).
func scanChunk(data []byte) (f chunkFields, ok bool) {
	s := &jsonScan{b: data}
	var seen uint8
	choices := 0
	ok = s.object(func(key []byte) bool {
		switch i, ok := known(key, &seen, "choices", "usage"); {
		case !ok:
			return false
		case i == 0:
			return s.array(func() bool { choices++; return choices == 1 && s.choice(&f) })
		case i == 1:
			set, ok := s.set()
			f.more = f.more || set
			return ok
		}
		return s.skip(maxScanDepth)
	})
	s.ws()
	return f, ok && choices == 1 && s.i == len(s.b)
}

// choice reads the one choice of a chunk.
func (s *jsonScan) choice(f *chunkFields) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		switch i, ok := known(key, &seen, "delta", "finish_reason"); {
		case !ok:
			return false
		case i == 0:
			return s.delta(f)
		case i == 1:
			reason, ok := s.text()
			f.finish = reason != ""
			return ok
		}
		return s.skip(maxScanDepth)
	})
}

// delta reads a choice's delta.
func (s *jsonScan) delta(f *chunkFields) bool {
	var seen uint8
	return s.object(func(key []byte) bool {
		switch i, ok := known(key, &seen, "content", "tool_calls", "function_call"); {
		case !ok:
			return false
		case i == 0:
			var ok bool
			f.content, ok = s.text()
			return ok
		case i > 0:
			set, ok := s.set()
			f.more = f.more || set
			return ok
		}
		return s.skip(maxScanDepth)
	})
}
