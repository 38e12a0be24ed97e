// Package ascii owns the fast ASCII test that the template renderer (prompt)
// and the score scanner (cognition) use to take their byte-wise fast paths.
// It imports no project package.
//
// # Imports
//
// It imports no project package.
package ascii

import "unicode/utf8"

// Is reports whether s is all ASCII, eight bytes at a time.
func Is(s string) bool { return Prefix(s) == len(s) }

// Prefix returns the length of the ASCII run that s starts with, reading
// eight bytes at a time.
func Prefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if w&0x8080808080808080 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i
		}
	}
	return i
}
