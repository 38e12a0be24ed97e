package secrets_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogloop/cogloop/agents/secrets"
)

// Near-copies of a key are scrubbed like the key: another case, spaced out,
// split by a newline, the key minus one character (either end), a long piece
// of it inside other text. Short or common pieces are left alone.
func TestScrubNearCopies(t *testing.T) {
	const k = "sk-live-Q7f3ZpL0x9VbN2mW4tYc"
	s := secrets.NewNamed("OPENAI_API_KEY", k)
	spaced := strings.Join(strings.Split(k, ""), " ")
	cases := []struct{ name, in, want string }{
		{"exact", "key " + k + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"upper case", "key " + strings.ToUpper(k) + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"lower case", "key " + strings.ToLower(k) + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"spaced", "key " + spaced + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"split by a newline", "key " + k[:10] + "\n" + k[10:] + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"split by CRLF and tabs", "key " + k[:5] + "\r\n\t" + k[5:] + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"minus the last character", "key " + k[:len(k)-1] + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"minus the first character", "key " + k[1:] + ".", "key [REDACTED:OPENAI_API_KEY]."},
		{"a long piece inside a word", "xx" + k[4:22] + "yy", "xx[REDACTED:OPENAI_API_KEY]yy"},
		{"twice, touching", k + k, "[REDACTED:OPENAI_API_KEY]"},
		{"twice", k + " and " + strings.ToUpper(k), "[REDACTED:OPENAI_API_KEY] and [REDACTED:OPENAI_API_KEY]"},
		{"a short piece stays", "the prefix sk-live- is public", "the prefix sk-live- is public"},
		{"fifteen bytes stay", "x " + k[3:18] + " y", "x " + k[3:18] + " y"},
		{"ordinary text", "nothing to see here", "nothing to see here"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, secrets.Scrub(tc.in, s))
		})
	}
}

// A short secret (8 to 15 bytes) is scrubbed whole in any case or spacing,
// never in pieces; one under 8 bytes only exactly.
func TestScrubShortSecrets(t *testing.T) {
	s := secrets.New("abcdefgh12")
	assert.Equal(t, "k=[redacted]", secrets.Scrub("k=ABCD efgh\n12", s))
	assert.Equal(t, "k=abcdefgh1", secrets.Scrub("k=abcdefgh1", s))
	tiny := secrets.New("xyz")
	assert.Equal(t, "[redacted] XYZ", secrets.Scrub("xyz XYZ", tiny))
}

// Where the near-copies of two secrets overlap, one span covers both, named
// by the longer secret; Spans reports what Scrub replaces.
func TestScrubOverlapAndSpans(t *testing.T) {
	long := secrets.NewNamed("LONG", "abcdefghijklmnopqrstuvwxyz0123")
	short := secrets.NewNamed("SHORT", "qrstuvwxyz0123456789")
	in := "<abcdefghijklmnopqrstuvwxyz0123456789>"
	assert.Equal(t, "<[REDACTED:LONG]>", secrets.Scrub(in, short, long))
	assert.Equal(t, [][2]int{{1, len(in) - 1}}, secrets.Spans(in, short, long))
	assert.Empty(t, secrets.Spans("plain", long))
}

// BenchmarkScrub is the scrub of text holding no secret (every prompt and
// reply pays it) against one key, and of a 1 MiB reply.
func BenchmarkScrub(b *testing.B) {
	s := secrets.NewNamed("OPENAI_API_KEY", "sk-proj-"+strings.Repeat("Q7f3ZpL0x9VbN2mW4tYc", 8))
	for _, size := range []int{1 << 10, 1 << 20} {
		text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", size/45+1)[:size]
		b.Run(byteLabel(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if out := secrets.Scrub(text, s); len(out) != len(text) {
					b.Fatal("scrubbed plain text")
				}
			}
		})
	}
}

func byteLabel(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}
