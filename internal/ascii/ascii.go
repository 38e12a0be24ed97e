// Package ascii owns the fast ASCII test that the template renderer (prompt)
// and the score scanner (cognition) use to take their byte-wise fast paths.
// It imports no project package.
package ascii

import "unicode/utf8"

// Is reports whether s is all ASCII, eight bytes at a time.
func Is(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
