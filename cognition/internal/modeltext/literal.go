package modeltext

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseObject reads the first-"{"-to-last-"}" span of text as a JSON object,
// falling back to a Python dict literal.
func ParseObject(text string) (map[string]any, bool) {
	i := strings.IndexByte(text, '{')
	j := strings.LastIndexByte(text, '}')
	if i < 0 || j < i {
		return nil, false
	}
	blob := text[i : j+1]
	var m map[string]any
	if json.Unmarshal([]byte(blob), &m) == nil && m != nil {
		return m, true
	}
	m = nil
	if json.Unmarshal([]byte(LiteralToJSON(blob)), &m) == nil && m != nil {
		return m, true
	}
	return nil, false
}

// LowerKeys returns m with lower-cased keys; of keys that differ only in case,
// the last in sorted order wins.
func LowerKeys(m map[string]any) map[string]any {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		out[strings.ToLower(k)] = m[k]
	}
	return out
}

// LiteralToJSON applies OrKa's conversion of a Python literal to JSON: the
// words True, False, None become true, false, null and every single quote becomes
// a double quote.
func LiteralToJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prevWord := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !prevWord {
			if w, repl, ok := pyWordAt(s[i:]); ok {
				b.WriteString(repl)
				i += len(w)
				prevWord = true
				continue
			}
		}
		if r == '\'' {
			b.WriteByte('"')
		} else {
			b.WriteString(s[i : i+n])
		}
		prevWord = isWordRune(r)
		i += n
	}
	return b.String()
}

var pyWords = [...][2]string{{"True", "true"}, {"False", "false"}, {"None", "null"}}

// pyWordAt matches True, False or None at the start of s, followed by a word
// boundary.
func pyWordAt(s string) (word, repl string, ok bool) {
	for _, w := range pyWords {
		if strings.HasPrefix(s, w[0]) {
			next, _ := utf8.DecodeRuneInString(s[len(w[0]):])
			if len(s) == len(w[0]) || !isWordRune(next) {
				return w[0], w[1], true
			}
		}
	}
	return "", "", false
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}
