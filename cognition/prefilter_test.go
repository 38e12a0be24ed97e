package cognition

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/ascii"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestAnalyze(t *testing.T) {
	tests := []struct {
		expr   string
		ci     bool
		lits   []string // nil: no prefilter
		prefix bool
		fast   string
	}{
		{expr: `SCORE:\s*([0-9.]+)`, lits: []string{"SCORE:"}, prefix: true},
		{expr: `score:\s*(\d+\.?\d*)`, ci: true, lits: []string{"score:"}, prefix: true},
		{expr: `(\d+\.?\d*)/10`, lits: []string{"/10"}},
		{expr: `(\d+\.?\d*)\s*out\s*of\s*10`, lits: []string{"out"}},
		{expr: `(\d+\.?\d*)\s*points?`, lits: []string{"point"}},
		{expr: `0\.[6-9][0-9]?`, lits: []string{"0.6", "0.7", "0.8", "0.9"}, prefix: true},
		{expr: `([0-9]+\.[0-9]+)`, lits: []string{"."}},
		{expr: `(a+)+$`, lits: []string{"a"}},
		{expr: `(?:provides?|identifies?|shows?|reveals?)\s+(.+?)(?:\n|$)`, ci: true,
			lits: []string{"provide", "identifie", "show", "reveal"}, prefix: true,
			fast: `(?:provides?|identifies?|shows?|reveals?)\s+(.[^\n]*)(?:\n|$)`},
		{expr: `(?:overlooked|missed|not adequately|fails? to)\s+(.+?)(?:\n|$)`, ci: true,
			lits: []string{"overlooked", "missed", "not adequately", "fail to", "fails to"}, prefix: true,
			fast: `(?:overlooked|missed|not adequately|fails? to)\s+(.[^\n]*)(?:\n|$)`},
		{expr: `(?i)Key:\s*(.*?)(?:$|\n)`, lits: []string{"key:"}, prefix: true, fast: `(?i)Key:\s*([^\n]*)(?:$|\n)`},
		{expr: `(?i:Key)Word`, lits: []string{"keyword"}, prefix: true},
		{expr: `[Kk]ey\b`, ci: true, lits: []string{"key"}, prefix: true},
		{expr: `x|(.+?)(?:\n|\z)`, fast: `x|(.[^\n]*)(?:\n|\z)`},
		{expr: `\bSCORE\b(?=:)`, lits: []string{"SCORE"}, prefix: true},
		{expr: `(?<=SCORE: )(\d+)`},
		{expr: `a{,3}b`, lits: []string{"a{,3}b"}, prefix: true},
		{expr: `a{2}b`, lits: []string{"a"}},
		{expr: `[\]a]bc`, lits: []string{"]bc", "abc"}, prefix: true},
		{expr: `\.\*\+\?`, lits: []string{".*+?"}, prefix: true},
		{expr: `é+t`, ci: true, lits: []string{"é"}, prefix: true}, // two bytes
		// Refused: the expression runs as written.
		{expr: `(?P<q>['"])(.+?)(?P=q)`},
		{expr: `\x41BC`},
		{expr: `(?#note)v=(\d+)`},
		{expr: `(?x) a b`},
		{expr: `[a-z-[aeiou]]x`},
		{expr: `(.+?)$`},
		{expr: `((.+?)(?:\n|$))`},
		{expr: `(.+?)(?:\n|$|\.)`},
		{expr: `(.+?)(?:\n|$)x`, lits: []string{"x"}}, // not the end: no rewrite
		{expr: ``},
		{expr: `\s*`},
	}
	for _, tc := range tests {
		t.Run(tc.expr, func(t *testing.T) {
			src, _ := translatePython(tc.expr)
			a := analyze(src, tc.ci)
			assert.Equal(t, tc.fast, a.fast)
			if tc.lits == nil {
				assert.False(t, a.hasPre, "%+v", a.pre)
				return
			}
			require.True(t, a.hasPre)
			assert.Equal(t, tc.lits, a.pre.lits)
			assert.Equal(t, tc.prefix, a.pre.prefix)
		})
	}
}

// TestLowerCaseAssumptions checks, over every rune, the properties of
// unicode.ToLower the prefilter relies on: lower-casing twice changes nothing,
// no rune lower-cases to an ASCII capital, and only "\n" lower-cases to "\n"
// (the line-tail rewrite's [^\n] under IgnoreCase).
func TestLowerCaseAssumptions(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		l := unicode.ToLower(r)
		if unicode.ToLower(l) != l {
			t.Fatalf("ToLower is not idempotent at %U", r)
		}
		if 'A' <= l && l <= 'Z' {
			t.Fatalf("%U lower-cases to %q", r, l)
		}
		if l == '\n' && r != '\n' {
			t.Fatalf("%U lower-cases to a newline", r)
		}
	}
}

func TestIndexRare(t *testing.T) {
	text := "the shows show: a showcase of shows, showing " + strings.Repeat("w", 40) + " show"
	for _, lit := range []string{"show", "shows", "show:", "w", "ww", "of s", "nope", "showing", " show"} {
		k := newPrefilter([]string{lit}, false, false).rare[0]
		for from := 0; from <= len(text); from++ {
			want := strings.Index(text[from:], lit)
			assert.Equal(t, want, indexRare(text[from:], lit, k), "%q from %d", lit, from)
		}
	}
}

func TestLitIndex(t *testing.T) {
	pfs := []*prefilter{{lits: []string{"pro", "ro", "ovid"}}, {lits: []string{"la", "lacks"}}}
	newLitIndex(pfs)
	require.NotNil(t, pfs[0].index)
	text := "Provides a view; pro lacks data, proovid provide"
	for _, pf := range pfs {
		tx := newText("a", "", text, DefaultMaxInput)
		tx.indexLiterals(false, pf.index)
		var lc litCursor
		for b := 0; b <= len(text); b++ {
			want := -1
			for _, lit := range pf.lits {
				if i := strings.Index(text[b:], lit); i >= 0 && (want < 0 || b+i < want) {
					want = b + i
				}
			}
			got, ok := lc.nextIndexed(pf, tx, b)
			require.True(t, ok)
			require.Equal(t, want, got, "%v from %d", pf.lits, b)
		}
	}
	short := []*prefilter{{lits: []string{"a", "bc"}}}
	newLitIndex(short)
	assert.Nil(t, short[0].index, "a one-byte literal: each literal is searched for")
}

// differentialPatterns are the expressions the prefilter and the rewrite are
// checked on: OrKa's examples, the patterns of every workflow file in the
// repository, and constructs that test the analysis. (cognition/scorer checks
// its built-in patterns the same way.)
func differentialPatterns(t testing.TB) []string {
	var exprs []string
	exprs = append(exprs, orkaExamplePatterns.Insights...)
	exprs = append(exprs, orkaExamplePatterns.Improvements...)
	exprs = append(exprs, orkaExamplePatterns.Mistakes...)
	exprs = append(exprs,
		// OrKa's examples/*.yml score patterns
		`SCORE:\s*([0-9]+\.?[0-9]*)`, `Score:\s*([0-9]+\.?[0-9]*)`, `QUALITY:\s*([0-9]+\.?[0-9]*)`,
		`(0\.[6-9][0-9]?)`, `(0\.[5][0-9])`, `QUALITY_SCORE:\s*([0-9]+\.?[0-9]*)`, `(0\.[5-9][0-9]?)`, `(1\.0)`,
		// constructs
		`(\w+)$`, `(\w+)\Z`, `(?m)^score: (\d+)$`, `\bscore\b:\s*(\d+)`, `(?i)score:\s*(\d+)`, `(?i:score):\s*(\d+)`,
		`score(?=:)`, `(?<=SCORE: )(\d+\.\d+)`, `(?<!no )score`, `(?P<v>\d+)/10`, `(?P<q>['"])(.+?)(?P=q)`,
		`[Ss]core:\s*([0-9.]+)`, `[A-Z]+: (\d)`, `(?:a|b|)c`, `x*y`, `(x?)y`, `(a|ab)(c|bcd)(d*)`, `\d{2,3}%`,
		`a{,3}b`, `a{2}b`, `\.\*\+\?`, `[\]a]+b`, `[^\n]+\n`, `[a-c\-x]y`, `\x41BC`, `\u0041`, `\p{Lu}\w+: (\d)`,
		`(?#c)v=(\d+)`, `(?x) s h o w # c`, `(.*?)(?:\n|$)`, `.+?(?:$|\n)`, `(.+?)(?:\n|\z)`,
		`(.+?)(?:\n|$|\.)`, `(.+?)(?:\n|$)|x`, `x|(.+?)(?:\n|$)`, `((.+?)(?:\n|$))`,
		`\n(.+?)(?:\n|$)`, `(?m)(.+?)(?:\n|$)`, `(.+?)(?:\r?\n|$)`, `(?-i:Key) (.+?)(?:$|\n)`,
		`(?i)(?:provides?|shows?)\s+(.+?)(?:\n|$)`, `[Kk]ey: (.+)`, `[éÉ]t(.)`, `[A-C]x`, `(?:K|k)ey`,
		`(?:insight|finding)s?[:\s]+(.+?)(?:\n|$)`, `note:\s*(\S+)`, `(?>ab|a)c`, `(a)|b`, `(?:(a)|b)+c`,
		`\$(\d+)`, `(\d+)\s*(?:%|percent)`, `^(.+?)(?:\n|$)`, `(?:^|\n)- (.+?)(?:\n|$)`, `ß(.)`, `Σ(.)`,
		``, `\s*`, `(?:)`, `^`, `$`, `(a*)*b`, `(|a)+b`, `.`, `(?s).`, `\n`, `(?i)İ(.)`, `(?i)\x{212A}ey`,
		`(\d+)/10$`, `(\w+)\s*$`, `(?P<n>\d+)%`, `\b(\w+)\b`, `(\S+)\s+it`, `([a-z]+)\n`, `(\d)(?:\n|$)`,
		// heads that run as programs (see headProg), and some that do not
		`(?:a|ab)\s*(.+?)(?:\n|$)`, `(?:sh|show)s?\s*(.*?)(?:\n|$)`, `(?:fails? to|fail)\s+(.+?)(?:\n|\z)`,
		`note[:,]*(.+?)(?:\n|$)`, `(?:key|k)\s+(?:point|p)s?[:\s]+(.+?)(?:\n|$)`, `it\s+(?:lacks|needs)\s*(.*?)(?:\n|$)`,
		`key:\s*(.+?)(?:\n|$)`, `(?:missing|needs?)[ :]+(.+?)(?:\n|$)`, `shows\s+(.+?)(?:\n|$)`,
		`SCORE:\s*([0-9.]+)`, `score[: ]*([0-9]+)`, `(?:rating|score)\s*([0-9.,/]+)`, `x[\s0-9]*([0-9]+)`, `a([.]+)`,
	)
	for _, dir := range []string{"../examples", "../configs", "../testdata/orka", "../types/validate/testdata/orka"} {
		exprs = append(exprs, yamlPatterns(t, dir)...)
	}
	return exprs
}

// quadraticPatterns scan to the end of the text from every position: they are
// checked on short texts only.
var quadraticPatterns = []string{`(.+?)$`, `(?s).+?END`, `(.+?)\z`, `(?s)(.*?)$`}

// yamlPatterns returns the regexes of the workflow files under dir: the values
// of keys that name patterns.
func yamlPatterns(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return nil
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(k, e)
				}
			case []any:
				for _, e := range x {
					walk(key, e)
				}
			case string:
				if strings.Contains(key, "pattern") || key == "insights" || key == "improvements" || key == "mistakes" {
					out = append(out, x)
				}
			}
		}
		walk("", doc)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the workflow patterns under %s: %v", dir, err)
	}
	if files == 0 {
		t.Fatalf("no workflow files under %s: the patterns they hold would vanish from the test", dir)
	}
	return out
}

var differentialOptions = []PatternOptions{
	{},
	{IgnoreCase: true, DotAll: true},
	{IgnoreCase: true},
	{DotAll: true},
}

type spanResult struct {
	Start, End int
	OK         bool
	Err        bool
}

// scanAll runs p's first and each on text, on a CPU budget far above any
// MatchTimeout: a timeout is then judged by the CPU time a match used (a run
// that waited for a CPU runs again), so the differential does not depend on
// how loaded the machine is.
func scanAll(p *Pattern, text string) (spanResult, []spanResult, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return scanAllIn(&Scan{Budget: NewCPUBudget(time.Hour)}, p, text)
}

// scanAllIn is scanAll within the budget of sc (nil: none).
func scanAllIn(sc *Scan, p *Pattern, text string) (spanResult, []spanResult, bool) {
	t := newText("a", "", text, p.limits.MaxInput)
	s, e, ok, err := p.first(t, sc)
	first := spanResult{s, e, ok, err != nil}
	var all []spanResult
	truncated, err := p.each(t, sc, func(s, e int) bool {
		all = append(all, spanResult{Start: s, End: e, OK: true})
		return true
	})
	if err != nil {
		all = append(all, spanResult{Err: true})
	}
	return first, all, truncated
}

// differentialStride: under -race (single-goroutine code, where the race
// detector finds nothing and costs ~60×: 114 s against 1.9 s) each pattern
// and option set meets every 6th text, a different sixth for each pair; the
// whole product runs without -race (.ci/run runs this test so too).
const differentialStride = 6

// TestPrefilterDifferential: for every pattern, option set and text, the
// analysed pattern (prefilter, anchored attempts, rewrite) finds exactly what
// the pattern as written finds.
func TestPrefilterDifferential(t *testing.T) {
	texts := cogtest.DifferentialTexts()
	var short []string
	for _, text := range texts {
		if len(text) <= 300 {
			short = append(short, text)
		}
	}
	analysed, onRE2, split, prog := 0, 0, 0, 0
	patterns := differentialPatterns(t)
	for i, expr := range append(patterns, quadraticPatterns...) {
		for j, o := range differentialOptions {
			texts := texts
			if i >= len(patterns) || j >= 2 {
				// Long texts with the two option sets Score and Extract use.
				texts = short
			}
			o.MatchTimeout = 10 * time.Second
			plain, err := compile(expr, o, false)
			if err != nil {
				continue
			}
			fast, err := compile(expr, o, true)
			require.NoError(t, err, expr)
			if fast.hasPre || fast.re != plain.re {
				analysed++
			}
			if fast.re2 != nil {
				onRE2++
			}
			if fast.tail != nil {
				split++
				if fast.tail.prog != nil {
					prog++
				}
			}
			for k, text := range texts {
				if raceDetector && (k+i+j)%differentialStride != 0 {
					continue
				}
				wantFirst, wantAll, wantTrunc := scanAll(plain, text)
				gotFirst, gotAll, gotTrunc := scanAll(fast, text)
				require.Equal(t, wantFirst, gotFirst, "first: %q %+v on %q", expr, o, modeltext.Excerpt(text))
				require.Equal(t, wantAll, gotAll, "each: %q %+v on %q", expr, o, modeltext.Excerpt(text))
				require.Equal(t, wantTrunc, gotTrunc)
				wv, wok, _ := plain.Find(text)
				gv, gok, _ := fast.Find(text)
				require.Equal(t, wv, gv, "Find: %q %+v on %q", expr, o, modeltext.Excerpt(text))
				require.Equal(t, wok, gok)
			}
		}
	}
	assert.Greater(t, analysed, 200, "most patterns take the analysed path")
	assert.Greater(t, onRE2, 100, "the patterns without anchored attempts mostly have an RE2 form")
	assert.Greater(t, split, 50, "the patterns that end with a captured line idiom run as head and tail")
	assert.Greater(t, prog, 30, "the heads of OrKa's lesson patterns run without regexp2")
	t.Logf("%d analysed, %d with an RE2 form, %d split, %d with a head program", analysed, onRE2, split, prog)
}

// TestPrefilterEachMatchesFindNextMatch checks the plain iteration against
// regexp2's own FindNextMatch chain, empty matches included.
func TestPrefilterEachMatchesFindNextMatch(t *testing.T) {
	for _, expr := range []string{`(a*)`, `(x?)`, `(\b)`, `(a|)`, `(.+?)(?:\n|$)`, `(\w+)`} {
		p, err := compile(expr, PatternOptions{}, false)
		require.NoError(t, err)
		for _, text := range []string{"", "baaa", "a a", "xyx\n", "ab\ncd\n"} {
			var want []spanResult
			r := []rune(text)
			m, err := p.re.FindRunesMatch(r)
			for ; m != nil && err == nil; m, err = p.re.FindNextMatch(m) {
				s, e, ok := p.span(m)
				if ok {
					want = append(want, spanResult{Start: s, End: e, OK: true})
				}
			}
			require.NoError(t, err)
			_, got, _ := scanAll(p, text)
			assert.Equal(t, want, got, "%q on %q", expr, text)
		}
	}
}

// plainPattern is p as written ([Pattern.AsWritten]).
func plainPattern(t testing.TB, p *Pattern) *Pattern {
	q := p.AsWritten()
	require.Equal(t, p.String(), q.String())
	return q
}

// unanalysedExtractor rebuilds e with every pattern as written.
func unanalysedExtractor(t testing.TB, e *Extractor) *Extractor {
	c := *e
	c.index = [2]*litIndex{}
	for i, ps := range e.patterns {
		c.patterns[i] = nil
		for _, p := range ps {
			c.patterns[i] = append(c.patterns[i], plainPattern(t, p))
		}
	}
	return &c
}

// TestExtractDifferential compares whole Extract calls with and without the
// analysis (cognition/scorer does the same for Score).
func TestExtractDifferential(t *testing.T) {
	limits := Limits{MatchTimeout: 10 * time.Second, Budget: time.Minute}
	extractors := []*Extractor{
		newExtractor(t, ExtractConfig{Limits: limits, Patterns: orkaExamplePatterns, MaxLengthPerCategory: 400}),
		newExtractor(t, ExtractConfig{Limits: limits, MaxLengthPerCategory: 2000, Patterns: ExtractPatterns{
			Insights:     []string{`(?:shows?|reveals?|finds?)\s+(.+?)(?:\n|$)`, `key:\s*(.*?)(?:$|\n)`},
			Improvements: []string{`(?:should|needs? to)\s+(.+?)(?:\n|$)`, `^- (.+)$`},
			Mistakes:     []string{`(?:too|missing)\s+(.+?)(?:\n|$)`, `(?m)^(?:gap|issue): (.+)$`},
		}}),
	}
	texts := cogtest.DifferentialTexts()
	for i, a := range texts {
		b := texts[(i*7+3)%len(texts)]
		results := []Result{{"a", a}, {"b", cogtest.Resp(b)}, {"score_moderator", map[string]any{"result": a + b}}}
		for _, e := range extractors {
			assert.Equal(t, unanalysedExtractor(t, e).Extract(results), e.Extract(results), "texts %d", i)
		}
	}
	results := benchIteration()
	for _, e := range extractors {
		assert.Equal(t, unanalysedExtractor(t, e).Extract(results), e.Extract(results))
	}
}

// FuzzPrefilter: an arbitrary expression (Python syntax) on an arbitrary text,
// with and without the analysis, must find the same spans.
func FuzzPrefilter(f *testing.F) {
	texts := cogtest.DifferentialTexts()
	for i, expr := range differentialPatterns(f) {
		f.Add(expr, texts[i%len(texts)], byte(i))
	}
	f.Fuzz(func(t *testing.T, expr, text string, flags byte) {
		if len(expr) > 200 || len(text) > 4096 {
			return
		}
		o := PatternOptions{IgnoreCase: flags&1 != 0, DotAll: flags&2 != 0,
			Limits: Limits{MatchTimeout: 50 * time.Millisecond}}
		plain, err := compile(expr, o, false)
		if err != nil {
			return
		}
		fast, err := compile(expr, o, true)
		require.NoError(t, err)
		budget := func() *Scan { return &Scan{Limits: Limits{Budget: 200 * time.Millisecond}} }
		scWant, scGot := budget(), budget()
		wantFirst, wantAll, wantTrunc := scanAllIn(scWant, plain, text)
		gotFirst, gotAll, gotTrunc := scanAllIn(scGot, fast, text)
		if wantFirst.Err || gotFirst.Err || hasErr(wantAll) || hasErr(gotAll) || scWant.spent() || scGot.spent() {
			return // a timeout or a spent budget: the two paths ran different attempts
		}
		require.Equal(t, wantFirst, gotFirst, "first")
		require.Equal(t, wantAll, gotAll, "each")
		require.Equal(t, wantTrunc, gotTrunc)
	})
}

func hasErr(rs []spanResult) bool {
	for _, r := range rs {
		if r.Err {
			return true
		}
	}
	return false
}

// TestAnchoredAttemptsAreBounded: a search made of anchored attempts stops with
// ErrMatchTimeout once the attempts together exceed MatchTimeout, and checks
// the call's budget between attempts.
func TestAnchoredAttemptsAreBounded(t *testing.T) {
	p, err := CompileOptions(`xy(\d)`, PatternOptions{Limits: Limits{MatchTimeout: time.Nanosecond}})
	require.NoError(t, err)
	require.NotNil(t, p.anchored)
	_, _, err = p.Find("xy xy xy xy9")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrMatchTimeout), "%v", err)

	p, err = Compile(`xy(\d)`)
	require.NoError(t, err)
	sc := &Scan{Limits: Limits{Budget: time.Nanosecond}.WithDefaults()}
	_, _, ok := sc.First(p, sc.Text("a", "", strings.Repeat("xy ", 100)+"xy9"))
	assert.False(t, ok)
	assert.Equal(t, []Warning{{Code: CodeRegexBudget, Message: "regex budget of 1ns spent: remaining scans skipped"}}, sc.Warnings())
}

// TestAnchoredAttemptsFallBack: after maxAnchoredAttempts failed attempts the
// search goes on with a plain scan, which finds the same match.
func TestAnchoredAttemptsFallBack(t *testing.T) {
	text := strings.Repeat("SCORE: none\n", 3*maxAnchoredAttempts) + "SCORE: 0.42"
	p, err := Compile(`SCORE:\s*([0-9.]+)`)
	require.NoError(t, err)
	v, ok, err := p.Find(text)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "0.42", v)
}

// TestNonASCIIPositions: rune and byte positions stay aligned when lower-casing
// changes byte lengths (the Kelvin sign is three bytes, its lower case one).
func TestNonASCIIPositions(t *testing.T) {
	p, err := CompileOptions(`key:\s*(.+?)(?:\n|$)`, PatternOptions{IgnoreCase: true, DotAll: true})
	require.NoError(t, err)
	require.True(t, p.pre.fold)
	text := "é \u212Aey: Ünïcode välue\nKEY: second\n"
	tx := newText("a", "", text, DefaultMaxInput)
	var got []string
	_, err = p.each(tx, nil, func(s, e int) bool {
		got = append(got, string(tx.Runes()[s:e]))
		return true
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Ünïcode välue", "second"}, got)
	assert.True(t, utf8.ValidString(tx.searchable(true)))
}

// TestLowerText: lowerText is unicode.ToLower rune by rune, on every text of
// the differential corpus and on every rune.
func TestLowerText(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if utf8.ValidRune(r) {
			all.WriteRune(r)
		}
	}
	texts := append(cogtest.DifferentialTexts(), all.String(), "İx Ⱥy", "ab Ⱥ", "\xffA")
	for i := range 20 { // an upper-case letter, "@", "[" and a non-ASCII rune at every place of the 8-byte words
		for _, c := range []string{"A", "Z", "@", "[", "É", "\u212A"} {
			texts = append(texts, strings.Repeat("a", i)+c+strings.Repeat("b", 19-i), strings.Repeat("Q", i)+c)
		}
	}
	for _, s := range texts {
		want := strings.Map(unicode.ToLower, s)
		same := true
		for _, r := range s {
			same = same && utf8.RuneLen(unicode.ToLower(r)) == utf8.RuneLen(r) && r != utf8.RuneError
		}
		got, lowA, sameSize := lowerText(s)
		require.Equal(t, want, got, "%q", s)
		assert.Equal(t, ascii.Is(want), lowA, "%q", s)
		assert.Equal(t, same, sameSize, "%q", s)
	}
}

// TestRuneMap: the sparse rune ↔ byte map agrees with a full table on every
// rune boundary of every differential text and of its lower-cased form, and
// toRunes with []rune.
func TestRuneMap(t *testing.T) {
	for _, s := range append(cogtest.DifferentialTexts(), "İx Ⱥy", "ééé", "aé", "éa", "\u212Aey: x") {
		if !utf8.ValidString(s) {
			s = string([]rune(s))
		}
		low, _, _ := lowerText(s)
		for _, text := range []string{s, low} {
			require.Equal(t, []rune(text), toRunes(text, ascii.Is(text)), "%q", text)
			m := newRuneMap(text)
			i := 0
			for b := range text {
				require.Equal(t, b, m.byteOffset(i), "%q rune %d", text, i)
				require.Equal(t, i, m.runeIndex(b), "%q byte %d", text, b)
				i++
			}
			require.Equal(t, len(text), m.byteOffset(i), "%q end", text)
			require.Equal(t, i, m.runeIndex(len(text)), "%q end", text)
		}
	}
}
