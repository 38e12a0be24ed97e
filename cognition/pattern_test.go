package cognition

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileError(t *testing.T) {
	_, err := Compile(`SCORE:\s*([0-9.]+`)
	require.Error(t, err)
	var pe *PatternError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `SCORE:\s*([0-9.]+`, pe.Pattern)
	assert.Equal(t, `invalid pattern "SCORE:\\s*([0-9.]+": missing closing )`, err.Error())
}

func TestPatternFind(t *testing.T) {
	tests := []struct {
		name, expr, text string
		want             string
		ok               bool
	}{
		{"group 1", `SCORE:\s*([0-9.]+)`, "x SCORE: 0.85 y", "0.85", true},
		{"whole match without a group", `0\.[6-9][0-9]?`, "about 0.75 or so", "0.75", true},
		{"non-capturing groups do not count", `(?:SCORE|Score):\s*[0-9.]+`, "Score: 3", "Score: 3", true},
		{"case-sensitive by default", `SCORE:\s*([0-9.]+)`, "score: 0.85", "", false},
		{"no match", `SCORE:\s*([0-9.]+)`, "nothing", "", false},
		{"optional group not taken part", `SCORE(?::\s*([0-9.]+))?`, "SCORE", "", false},
		{"Python named group", `(?P<v>[0-9.]+)/10`, "8/10", "8", true},
		{"Python group 1 is the first parenthesis, named or not", `(?P<a>[a-z]+)=([0-9]+)`, "x=1", "x", true},
		{"Python back-reference by name", `(?P<q>['"])(.+?)(?P=q)`, `say "hi" now`, `"`, true},
		{"\\Z is the very end, not before a final newline", `(\w+)\Z`, "end\n", "", false},
		{"$ matches before a final newline", `(\w+)$`, "end\n", "end", true},
		{"literal parenthesis in a class is no group", `[(](\d+)`, "(42", "42", true},
		{"escaped parenthesis is no group", `\((\d+)\)`, "(42)", "42", true},
		{"comment is no group", `(?#note)v=(\d+)`, "v=7", "7", true},
		{"unicode text", `note:\s*(\S+)`, "é note: ünï", "ünï", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.expr)
			require.NoError(t, err)
			got, ok, err := p.Find(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPatternHasGroup(t *testing.T) {
	for expr, want := range map[string]bool{
		`a(b)`:       true,
		`a(?:b)`:     false,
		`a(?P<n>b)`:  true,
		`a(?<n>b)`:   true,
		`a(?=b)`:     false,
		`a(?<=b)`:    false,
		`[(]a[)]`:    false,
		`\(a\)`:      false,
		`0\.[6-9]`:   false,
		`(?i)a(b)`:   true,
		`[]()]x(\d)`: true,
	} {
		p, err := Compile(expr)
		require.NoError(t, err, expr)
		assert.Equal(t, want, p.HasGroup(), expr)
	}
}

// TestOrkaExamplePatternsCompile compiles every score and cognitive pattern of
// the two OrKa example workflows in reference/orka-examples.
func TestOrkaExamplePatternsCompile(t *testing.T) {
	score := []string{
		`SCORE:\s*([0-9]+\.?[0-9]*)`, `Score:\s*([0-9]+\.?[0-9]*)`, `QUALITY:\s*([0-9]+\.?[0-9]*)`,
		`(0\.[6-9][0-9]?)`, `(0\.[5][0-9])`, `QUALITY_SCORE:\s*([0-9]+\.?[0-9]*)`, `(0\.[5-9][0-9]?)`, `(1\.0)`,
	}
	for _, expr := range score {
		_, err := Compile(expr)
		assert.NoError(t, err, expr)
	}
	for _, exprs := range [][]string{orkaExamplePatterns.Insights, orkaExamplePatterns.Improvements, orkaExamplePatterns.Mistakes} {
		for _, expr := range exprs {
			_, err := CompileOptions(expr, PatternOptions{IgnoreCase: true, DotAll: true})
			assert.NoError(t, err, expr)
		}
	}
}

func TestPatternTimeout(t *testing.T) {
	p, err := CompileOptions(`(a+)+(?=$)`, PatternOptions{Limits: Limits{MatchTimeout: 20 * time.Millisecond}})
	require.NoError(t, err)
	long := strings.Repeat("a", 50000) + "!"
	_, ok, err := p.Find(long)
	assert.False(t, ok)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrMatchTimeout))
	var me *MatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, `(a+)+(?=$)`, me.Pattern)
	assert.Equal(t, strings.Repeat("a", modeltext.ExcerptLen)+"…", me.Excerpt)
	assert.Equal(t, 50001, me.Len)
	assert.Less(t, len(err.Error()), 250)
}

func TestPatternMaxInput(t *testing.T) {
	p, err := CompileOptions(`END`, PatternOptions{Limits: Limits{MaxInput: 10}})
	require.NoError(t, err)
	_, ok, err := p.Find(strings.Repeat("x", 10) + "END" + strings.Repeat("x", 10))
	require.NoError(t, err)
	assert.False(t, ok, "the middle of a text beyond MaxInput is not scanned")
	_, ok, err = p.Find(strings.Repeat("x", 20) + "END")
	require.NoError(t, err)
	assert.True(t, ok, "its tail is")
	capped, cut := modeltext.Cap("ééé", 3) // é is 2 bytes: cut back to a rune boundary
	assert.Equal(t, "é", capped)
	assert.True(t, cut)
}

func TestNilPattern(t *testing.T) {
	var p *Pattern
	_, ok, err := p.Find("x")
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.False(t, p.HasGroup())
	assert.Equal(t, "", p.String())
}

// TestRE2PathRunsInLinearTime: an expression RE2 can run finds on RE2 what
// regexp2 would find with unlimited time, where regexp2 times out.
func TestRE2PathRunsInLinearTime(t *testing.T) {
	p, err := CompileOptions(`(a+)+$`, PatternOptions{Limits: Limits{MatchTimeout: 20 * time.Millisecond}})
	require.NoError(t, err)
	require.NotNil(t, p.re2)
	_, ok, err := p.Find(strings.Repeat("a", 50000) + "!")
	require.NoError(t, err)
	assert.False(t, ok)
	v, ok, err := p.Find(strings.Repeat("a", 50) + "!" + strings.Repeat("a", 30))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, strings.Repeat("a", 30), v)

	// A text ending with a newline goes to regexp2 ($ differs), which times out.
	_, _, err = p.Find(strings.Repeat("a", 50000) + "!\n")
	assert.ErrorIs(t, err, ErrMatchTimeout)
}
