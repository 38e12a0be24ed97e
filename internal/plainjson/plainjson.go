package plainjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/perf"
)

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// SyntaxError is malformed JSON: what is wrong and at which byte offset.
type SyntaxError struct {
	Msg    string
	Offset int
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// Decode decodes data, one JSON value with optional white space around it.
func Decode(data []byte) (any, error) {
	if perf.Off(perf.PlainJSON) {
		return slowDecode(data)
	}
	d := decoder{data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return v, nil
}

// end checks that only white space follows the value.
func (d *decoder) end() error {
	d.space()
	if d.i < len(d.data) {
		return d.errorf("data after the value")
	}
	return nil
}

// Object decodes data, which must be a JSON object or null (then the map is
// nil, as encoding/json leaves a map it decodes null into).
func Object(data []byte) (map[string]any, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case map[string]any:
		return m, nil
	case nil:
		return nil, nil
	}
	return nil, errors.New("not a JSON object")
}

// Members calls fn with the key and the raw JSON of each member of the
// object in data, in order; value is a slice of data, checked to be well
// formed. A syntax error anywhere in data is an error, found after fn has
// seen the members before it.
func Members(data []byte, fn func(key string, value []byte) error) error {
	d := decoder{data: data}
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		if d.skip(0) != nil { // not JSON at all: say where
			return d.errorf("expected a JSON object")
		}
		return errors.New("not a JSON object")
	}
	if d.open('}') {
		return d.end()
	}
	for {
		key, err := d.key(true)
		if err != nil {
			return err
		}
		start := d.i
		if err := d.skip(0); err != nil {
			return err
		}
		if err := fn(key, d.data[start:d.i]); err != nil {
			return err
		}
		if done, err := d.next('}'); err != nil {
			return err
		} else if done {
			return d.end()
		}
	}
}

// Valid reports whether data is one well-formed JSON value.
func Valid(data []byte) bool {
	d := decoder{data: data}
	d.space()
	if d.skip(0) != nil {
		return false
	}
	d.space()
	return d.i == len(d.data)
}

type decoder struct {
	data []byte
	i    int
}

func (d *decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Offset: d.i}
}

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.i >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return nil, d.errorf("unexpected %q", c)
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		return d.errorf("expected %s", word)
	}
	d.i += len(word)
	return nil
}

func (d *decoder) object(depth int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested too deeply")
	}
	m := map[string]any{}
	if d.open('}') {
		return m, nil
	}
	for {
		key, err := d.key(true)
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v // a repeated key: the last one wins, as in encoding/json
		if done, err := d.next('}'); done || err != nil {
			return m, err
		}
	}
}

func (d *decoder) array(depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, d.errorf("nested too deeply")
	}
	list := []any{}
	if d.open(']') {
		return list, nil
	}
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		if done, err := d.next(']'); done || err != nil {
			return list, err
		}
	}
}

// open moves past the '{' or '[' at d.i and reports whether closing follows
// at once (an empty collection, then moved past too).
func (d *decoder) open(closing byte) (empty bool) {
	d.i++
	d.space()
	if d.i < len(d.data) && d.data[d.i] == closing {
		d.i++
		return true
	}
	return false
}

// key reads an object member's key (decoded only when decode is set) and
// the ':' after it.
func (d *decoder) key(decode bool) (key string, err error) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", d.errorf("expected a string key")
	}
	if decode {
		key, err = d.str()
	} else {
		err = d.skipStr()
	}
	if err != nil {
		return "", err
	}
	d.space()
	if d.i >= len(d.data) || d.data[d.i] != ':' {
		return "", d.errorf("expected ':' after an object key")
	}
	d.i++
	d.space()
	return key, nil
}

// next moves past what follows a member or an element: ',' (more follow)
// or closing (done).
func (d *decoder) next(closing byte) (done bool, err error) {
	d.space()
	if d.i >= len(d.data) {
		return false, d.errorf("unexpected end of input before %q", closing)
	}
	switch d.data[d.i] {
	case ',':
		d.i++
		d.space()
		return false, nil
	case closing:
		d.i++
		return true, nil
	}
	return false, d.errorf("expected ',' or %q", closing)
}

// numberEnd checks the number at d.i and returns its end and whether it is
// written as a whole number (no fraction, no exponent).
func (d *decoder) numberEnd() (end int, whole bool, err error) {
	i := d.i
	if d.at(i, '-') {
		i++
	}
	if d.at(i, '0') {
		i++
	} else if i, err = d.digits(i, "expected a digit"); err != nil {
		return 0, false, err
	}
	whole = true
	if d.at(i, '.') {
		whole = false
		if i, err = d.digits(i+1, "expected a digit after '.'"); err != nil {
			return 0, false, err
		}
	}
	if d.at(i, 'e') || d.at(i, 'E') {
		whole = false
		if i++; d.at(i, '+') || d.at(i, '-') {
			i++
		}
		if i, err = d.digits(i, "expected a digit in the exponent"); err != nil {
			return 0, false, err
		}
	}
	return i, whole, nil
}

// at reports whether the byte at i is c.
func (d *decoder) at(i int, c byte) bool { return i < len(d.data) && d.data[i] == c }

// digits returns the index after the ASCII digits that start at i, or the
// error msg at i when there is none.
func (d *decoder) digits(i int, msg string) (int, error) {
	start := i
	for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
		i++
	}
	if i == start {
		return 0, &SyntaxError{Msg: msg, Offset: i}
	}
	return i, nil
}

// number is agents.Plain's reading of a json.Number: int when
// strconv.ParseInt takes it, else float64 (±Inf beyond float64's range).
func (d *decoder) number() (any, error) {
	end, whole, err := d.numberEnd()
	if err != nil {
		return nil, err
	}
	s := d.data[d.i:end]
	d.i = end
	if whole {
		if n, ok := smallInt(s); ok {
			return n, nil
		}
		if n, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return int(n), nil
		}
	}
	f, _ := strconv.ParseFloat(string(s), 64)
	return f, nil
}

// smallInt parses a whole number of at most 18 digits without allocating.
func smallInt(s []byte) (int, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// special marks the bytes a string's scan stops at: the quote, the
// backslash and control characters (invalid in JSON strings).
var special = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c < 0x20 || c == '"' || c == '\\'
	}
	return t
}()

// Eight bytes at a time: lo has 0x01 in every byte, hi 0x80.
const (
	lo = 0x0101010101010101
	hi = 0x8080808080808080
)

// plainRun is the end of the run of bytes from i that a string holds as
// they are (anything but a quote, a backslash or a control character; UTF-8
// is checked by the caller). It tests eight bytes per step: a byte of x
// below 0x20, or equal to '"' or '\\', sets its high bit in the mask.
func (d *decoder) plainRun(i int) int {
	for ; i+8 <= len(d.data); i += 8 {
		x := binary.LittleEndian.Uint64(d.data[i:])
		q, b := x^('"'*lo), x^('\\'*lo)
		if ((x-0x20*lo)&^x|(q-lo)&^q|(b-lo)&^b)&hi != 0 {
			break
		}
	}
	for i < len(d.data) && !special[d.data[i]] {
		i++
	}
	return i
}

// str decodes the string at d.i the way encoding/json does: invalid UTF-8
// and lone surrogates become U+FFFD.
func (d *decoder) str() (string, error) {
	d.i++ // '"'
	start := d.i
	d.i = d.plainRun(d.i)
	if d.i < len(d.data) && d.data[d.i] == '"' && utf8.Valid(d.data[start:d.i]) {
		s := string(d.data[start:d.i])
		d.i++
		return s, nil
	}
	d.i = start
	return d.slowStr(start)
}

// appendUTF8 appends run with every invalid UTF-8 byte as U+FFFD.
func appendUTF8(b, run []byte) []byte {
	if utf8.Valid(run) {
		return append(b, run...)
	}
	for len(run) > 0 {
		r, size := utf8.DecodeRune(run)
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, run[:size]...)
		}
		run = run[size:]
	}
	return b
}

func (d *decoder) slowStr(start int) (string, error) {
	b := make([]byte, 0, d.i-start+64)
	for d.i < len(d.data) {
		if end := d.plainRun(d.i); end > d.i {
			b = appendUTF8(b, d.data[d.i:end])
			if d.i = end; d.i >= len(d.data) {
				break
			}
		}
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			return string(b), nil
		case c < 0x20:
			return "", d.errorf("control character %q in a string", c)
		default: // '\\'
			var err error
			if b, err = d.escape(b); err != nil {
				return "", err
			}
		}
	}
	return "", d.errorf("unexpected end of input in a string")
}

// escapes are the one-letter JSON escapes and what they stand for.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape appends what the escape at d.i stands for to b and moves past it;
// a \u escape of a lone surrogate is U+FFFD, as encoding/json makes it.
func (d *decoder) escape(b []byte) ([]byte, error) {
	if d.i+1 >= len(d.data) {
		return nil, d.errorf("unexpected end of input in a string")
	}
	e := d.data[d.i+1]
	if c := escapes[e]; c != 0 {
		d.i += 2
		return append(b, c), nil
	}
	if e != 'u' {
		return nil, d.errorf("bad escape \\%c", e)
	}
	r, ok := hex4(d.data[d.i+2:])
	if !ok {
		return nil, d.errorf("bad \\u escape")
	}
	d.i += 6
	if utf16.IsSurrogate(r) {
		if r2, ok := lowSurrogate(d.data[d.i:]); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				d.i += 6
				return utf8.AppendRune(b, dec), nil
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(b, r), nil
}

// lowSurrogate reads a \uXXXX escape at the start of s.
func lowSurrogate(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	return hex4(s[2:])
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip checks the value at d.i and moves past it without building it.
func (d *decoder) skip(depth int) error {
	if d.i >= len(d.data) {
		return d.errorf("unexpected end of input")
	}
	switch c := d.data[d.i]; {
	case c == '{' || c == '[':
		return d.skipContainer(c, depth)
	case c == '"':
		return d.skipStr()
	case c == '-' || c >= '0' && c <= '9':
		end, _, err := d.numberEnd()
		d.i = end
		return err
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	default:
		return d.errorf("unexpected %q", c)
	}
}

// skipContainer checks the object or array opened by c at d.i and moves past
// it without building it.
func (d *decoder) skipContainer(c byte, depth int) error {
	if depth+1 > maxDepth {
		return d.errorf("nested too deeply")
	}
	closing := byte('}')
	if c == '[' {
		closing = ']'
	}
	if d.open(closing) {
		return nil
	}
	for {
		if c == '{' {
			if _, err := d.key(false); err != nil {
				return err
			}
		}
		if err := d.skip(depth + 1); err != nil {
			return err
		}
		if done, err := d.next(closing); done || err != nil {
			return err
		}
	}
}

// skipStr checks the string at d.i (escapes; any bytes ≥ 0x20 otherwise, as
// encoding/json accepts) and moves past it.
func (d *decoder) skipStr() error {
	d.i++ // '"'
	for d.i < len(d.data) {
		if d.i = d.plainRun(d.i); d.i >= len(d.data) {
			break
		}
		switch c := d.data[d.i]; {
		case c == '"':
			d.i++
			return nil
		case c < 0x20:
			return d.errorf("control character %q in a string", c)
		case c == '\\':
			if d.i+1 >= len(d.data) {
				return d.errorf("unexpected end of input in a string")
			}
			switch d.data[d.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i += 2
			case 'u':
				if _, ok := hex4(d.data[d.i+2:]); !ok {
					return d.errorf("bad \\u escape")
				}
				d.i += 6
			default:
				return d.errorf("bad escape \\%c", d.data[d.i+1])
			}
		default:
			d.i++
		}
	}
	return d.errorf("unexpected end of input in a string")
}

// slowDecode is Decode through encoding/json (UseNumber, then whole numbers
// that fit to int64 and the rest to float64), under COGLOOP_PERF_OFF=plainjson.
func slowDecode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &SyntaxError{Msg: "more than one value", Offset: int(dec.InputOffset())}
	}
	return Plain(v), nil
}

// Plain turns values decoded with json.Decoder.UseNumber into plain Go values:
// whole numbers that fit become int, other numbers float64, recursively
// through maps and lists (in place), as Decode makes them.
func Plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = Plain(e)
		}
	case []any:
		for i, e := range x {
			x[i] = Plain(e)
		}
	}
	return v
}
