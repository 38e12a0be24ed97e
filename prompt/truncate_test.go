package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// truncateByRunes is truncate's rule written plainly: at most n characters
// (invalid bytes count one each), the last len(suffix) replaced by suffix
// when the text is cut.
func truncateByRunes(s string, n int, sfx string) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:max(n-utf8.RuneCountInString(sfx), 0)]) + sfx
}

// TestTruncateFastPath: the ASCII fast path cuts where the rune walk does,
// whatever follows the cut (non-ASCII, invalid UTF-8) and whatever the suffix.
func TestTruncateFastPath(t *testing.T) {
	texts := []string{"", "short", strings.Repeat("abcdefgh", 40), strings.Repeat("a", 30) + "é" + strings.Repeat("b", 30),
		strings.Repeat("x", 25) + "\xff\xfe" + strings.Repeat("y", 25), "é" + strings.Repeat("z", 40), strings.Repeat("q", 20),
		strings.Repeat("ab€", 30) + "\xe2\x82" + strings.Repeat("→x", 20), "\x80\x80" + strings.Repeat("éa", 12) + "\xf0\x9f"}
	for _, s := range texts {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 19, 20, 21, 25, 26, 31, 64, 89, 90, 91, 400} {
			for _, sfx := range []string{"...", "", "→→", "a very long suffix"} {
				got, err := truncate(exec.AsValue(s), exec.AsValue(n), exec.AsValue(sfx))
				require.NoError(t, err)
				assert.Equal(t, truncateByRunes(s, n, sfx), got, "truncate(%q, %d, %q)", s, n, sfx)
			}
		}
	}
}

// FuzzTruncate compares truncate with the plain rune rule on any text.
func FuzzTruncate(f *testing.F) {
	f.Add("ab€cdefghijklmnopq\xe2\x82rs", 9, "...")
	f.Add("\x80\x80éa", 2, "→")
	f.Fuzz(func(t *testing.T, s string, n int, sfx string) {
		if n < 0 || n > 4096 {
			return
		}
		got, err := truncate(exec.AsValue(s), exec.AsValue(n), exec.AsValue(sfx))
		require.NoError(t, err)
		assert.Equal(t, truncateByRunes(s, n, sfx), got, "truncate(%q, %d, %q)", s, n, sfx)
	})
}
