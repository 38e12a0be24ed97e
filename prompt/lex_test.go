package prompt

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/tokens"
	"github.com/stretchr/testify/assert"
)

// streamTokens lists a stream's tokens to the end (or the first error).
func streamTokens(st *tokens.Stream) []tokens.Token {
	var out []tokens.Token
	for t := st.Current(); t != nil; t = st.Current() {
		out = append(out, *t)
		if t.Type == tokens.EOF || t.Type == tokens.Error {
			break
		}
		st.Next()
	}
	return out
}

// TestLexAllMatchesGonja: lexAll gives gonja's LexAll tokens, positions and
// errors included, on every template of the repository and on raw blocks,
// comments, line endings and lexer errors.
func TestLexAllMatchesGonja(t *testing.T) {
	srcs := append(repoTemplates(t),
		"", "plain\n", "a\r\nb\rc\n", "{% raw %}{{ x }}{% endraw %}", "{%- raw -%} x {%+ endraw %}y",
		"{# c #}{% comment %}x{% endcomment %}", "{% raw %}never closed", "{{ 'unterminated }}", "{{ 1.é }}",
		"{{ x }}\n\n", strings.Repeat("{{ a.b | f(1, 'x') }}\n", 200))
	for _, strict := range []bool{false, true} {
		cfg := sharedEnv().config(strict)
		for _, src := range srcs {
			assert.Equal(t, streamTokens(tokens.LexAll(src, cfg)), streamTokens(first(lexAll(src, cfg))), "%q", src)
		}
	}
}

// trapCandidatesByRunes is trapCandidates read rune by rune, as the lexer reads.
func trapCandidatesByRunes(src string) []int {
	var sites []int
	prev := rune(-1)
	for i, r := range src {
		if r == '.' && unicode.IsDigit(prev) && i+1 < len(src) {
			if next, w := utf8.DecodeRuneInString(src[i+1:]); w > 1 && !unicode.IsDigit(next) {
				sites = append(sites, i)
			}
		}
		prev = r
	}
	return sites
}

func TestTrapCandidatesMatchRuneScan(t *testing.T) {
	srcs := append(repoTemplates(t),
		"{{ 1.é }}", "{{ x.1.é }}", "1.é", ".é", "1.", "{{ ٣.é }}", "{{ 3.٣ }}", "{{ 3.ab }}",
		"\xf0٣.é", "\xe0\x80.é", "3\x80.é", "{{ 12.éa }}{{ 4.5 }}{{ 7.ü }}", "..1..é.",
	)
	hits := 0
	for _, src := range srcs {
		want := trapCandidatesByRunes(src)
		assert.Equal(t, want, trapCandidates(src), "%q", src)
		hits += len(want)
	}
	assert.Greater(t, hits, 4, "the inputs have candidates")
}

func first[T, U any](t T, _ U) T { return t }
