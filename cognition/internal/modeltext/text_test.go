package modeltext

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// TestIsSpaceIsPythons compares IsSpace with its definition for every
// character of the Basic Multilingual Plane and beyond.
func TestIsSpaceIsPythons(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
		if IsSpace(r) != want {
			t.Fatalf("IsSpace(%U) = %v, want %v", r, !want, want)
		}
	}
}

func TestTrimSpaceIsTrimFunc(t *testing.T) {
	for _, s := range []string{"", " ", "\t a b \n", "\u00a0x\u2003", "\x1cx\x1f", "\u0085 é \u3000", "\xff x \xfe", " \xff", "ab", "\u2028"} {
		assert.Equal(t, strings.TrimFunc(s, IsSpace), TrimSpace(s), "%q", s)
	}
}
