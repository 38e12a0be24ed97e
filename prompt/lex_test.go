package prompt

import (
	"strings"
	"testing"

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
			assert.Equal(t, streamTokens(tokens.LexAll(src, cfg)), streamTokens(lexAll(src, cfg)), "%q", src)
		}
	}
}
