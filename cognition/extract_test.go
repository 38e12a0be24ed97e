package cognition

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cogloop/cogloop/cognition/internal/cogtest"
	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// orkaExamplePatterns are the extract_patterns of OrKa's
// examples/cognitive_loop_scoring_example.yml.
var orkaExamplePatterns = ExtractPatterns{
	Insights:     cogtest.OrkaInsights,
	Improvements: cogtest.OrkaImprovements,
	Mistakes:     cogtest.OrkaMistakes,
}

func newExtractor(t testing.TB, cfg ExtractConfig) *Extractor {
	t.Helper()
	e, err := NewExtractor(cfg)
	require.NoError(t, err)
	return e
}

// TestExtractOrkaExample checks the example workflow's patterns against the
// output of OrKa's algorithm run with Python's re on the same texts.
func TestExtractOrkaExample(t *testing.T) {
	e := newExtractor(t, ExtractConfig{MaxLengthPerCategory: 400, Patterns: orkaExamplePatterns})
	got := e.Extract([]Result{
		{ID: "analyzer", Value: map[string]any{"response": cogtest.AnalyzerText, "confidence": 0.8}},
		{ID: "scorer", Value: map[string]any{"response": cogtest.ScorerText}},
	})
	assert.Equal(t, "a steady rise in remote work adoption since 2020 | that productivity depends on team size | "+
		"a balanced view of costs and benefits. | hybrid schedules reduce attrition by a measurable margin", got.Insights)
	assert.Equal(t, "regional data for smaller markets | more concrete examples. | long-term health outcomes of remote workers | "+
		"the credibility of the argument | quantify the productivity claims | a comparison with pre-2020 baselines", got.Improvements)
	assert.Equal(t, "the effect on junior employees | address the legal implications of cross-border hiring | "+
		"no discussion of security risks in home networks", got.Mistakes)
	assert.Empty(t, got.Warnings)
}

// TestExtractRules: each expectation was produced by OrKa's algorithm with
// Python's re on the same input (except "mapping", where OrKa scans the Python
// repr and ends the capture with '} instead of "}).
func TestExtractRules(t *testing.T) {
	simple := ExtractPatterns{
		Insights:     []string{`insight:\s*(.+?)(?:\n|$)`},
		Improvements: []string{`improve:\s*(.+?)(?:\n|$)`},
		Mistakes:     []string{`mistake:\s*(.+?)(?:\n|$)`},
	}
	tests := []struct {
		name     string
		patterns ExtractPatterns
		maxLen   int
		results  []Result
		want     Extraction
	}{
		{
			name:     "case-insensitive de-dup keeps the first spelling, across agents",
			patterns: simple,
			results: []Result{
				{ID: "a", Value: "insight: Use caching for reads\ninsight: use CACHING for reads\n"},
				{ID: "b", Value: "insight: Use caching for reads and writes"},
			},
			want: Extraction{Insights: "Use caching for reads | Use caching for reads and writes"},
		},
		{
			name:     "joined text cut at max_length_per_category plus ...",
			patterns: simple,
			maxLen:   50,
			results: []Result{{ID: "a", Value: "insight: alpha beta gamma delta epsilon zeta eta theta\n" +
				"insight: iota kappa lambda mu nu xi omicron pi"}},
			want: Extraction{Insights: "alpha beta gamma delta epsilon zeta eta theta | io..."},
		},
		{
			name:     "cut counts characters, not bytes",
			patterns: simple,
			maxLen:   30,
			results:  []Result{{ID: "a", Value: "insight: ünïcödé çhäràctêrs everywhere here\n"}},
			want:     Extraction{Insights: "ünïcödé çhäràctêrs everywhere ..."},
		},
		{
			name:     "whitespace runs collapse to one space after strip",
			patterns: simple,
			results:  []Result{{ID: "a", Value: "insight:   spread\t over   several\u00a0 spaces   \n"}},
			want:     Extraction{Insights: "spread over several spaces"},
		},
		{
			name:     "dot-all lets an item span lines",
			patterns: ExtractPatterns{Improvements: []string{`improve:\s*(.+?)\.`}},
			results:  []Result{{ID: "a", Value: "improve: first line of the item\n   that continues here. Done"}},
			want:     Extraction{Improvements: "first line of the item that continues here"},
		},
		{
			name:     "items of 10 characters or fewer are dropped",
			patterns: simple,
			results:  []Result{{ID: "a", Value: "insight: 0123456789\ninsight: 0123456789a\n"}},
			want:     Extraction{Insights: "0123456789a"},
		},
		{
			name:     "items longer than 200 characters are dropped",
			patterns: simple,
			maxLen:   1000,
			results: []Result{{ID: "a", Value: "insight: " + strings.Repeat("x", 200) + "\ninsight: " +
				strings.Repeat("y", 201) + "\n"}},
			want: Extraction{Insights: strings.Repeat("x", 200)},
		},
		{
			name:     "texts shorter than 20 characters are not scanned",
			patterns: simple,
			results: []Result{
				{ID: "a", Value: "insight: too short"},
				{ID: "b", Value: "insight: long enough text"},
			},
			want: Extraction{Insights: "long enough text"},
		},
		{
			name:     "a pattern without a group never matches",
			patterns: ExtractPatterns{Insights: []string{`insight:\s*\w+ \w+ \w+`}},
			results:  []Result{{ID: "a", Value: "insight: something worth noting here"}},
			want:     Extraction{},
		},
		{
			name:     "a mapping without text fields is scanned as sorted-key JSON",
			patterns: ExtractPatterns{Mistakes: []string{`fails? to\s+(.+?)(?:\n|$)`}},
			results: []Result{{ID: "tool", Value: map[string]any{
				"result": nil, "status": "error", "error": "the tool fails to connect to the database server",
			}}},
			want: Extraction{Mistakes: `connect to the database server","result":null,"status":"error"}`},
		},
		{
			name:     "only string fields of a mapping, in response/result/output/data order",
			patterns: simple,
			results: []Result{{ID: "a", Value: map[string]any{
				"data":       "insight: from the data field",
				"response":   "insight: from the response field",
				"confidence": "insight: confidence is not a text field",
				"result":     map[string]any{"x": "insight: nested mappings are not scanned"},
			}}},
			want: Extraction{Insights: "from the response field | from the data field"},
		},
		{
			name:     "$ matches before a final newline, as in Python",
			patterns: orkaExamplePatterns,
			results:  []Result{{ID: "a", Value: "The study reveals something important at the end\n"}},
			want:     Extraction{Insights: "something important at the end"},
		},
		{
			name:     "patterns are case-insensitive",
			patterns: simple,
			results:  []Result{{ID: "a", Value: "INSIGHT: Upper case label still matches"}},
			want:     Extraction{Insights: "Upper case label still matches"},
		},
		{
			name:     "an optional group that did not take part is skipped",
			patterns: ExtractPatterns{Insights: []string{`insight:(?:\s*(\w[\w ]+))?`}},
			results:  []Result{{ID: "a", Value: "insight:, then insight: a real one appears here"}},
			want:     Extraction{Insights: "a real one appears here"},
		},
		{
			name:     "values that are neither text nor mapping are skipped",
			patterns: simple,
			results:  []Result{{ID: "n", Value: 0.9}, {ID: "l", Value: []any{"insight: inside a list item"}}},
			want:     Extraction{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newExtractor(t, ExtractConfig{MaxLengthPerCategory: tc.maxLen, Patterns: tc.patterns})
			assert.Equal(t, tc.want, e.Extract(tc.results))
		})
	}
}

func TestExtractDisabled(t *testing.T) {
	e := newExtractor(t, ExtractConfig{Disabled: true, Patterns: orkaExamplePatterns})
	assert.Equal(t, Extraction{}, e.Extract([]Result{{ID: "a", Value: cogtest.AnalyzerText}}))
	var nilExtractor *Extractor
	assert.Equal(t, Extraction{}, nilExtractor.Extract([]Result{{ID: "a", Value: cogtest.AnalyzerText}}))
}

func TestNewExtractorErrors(t *testing.T) {
	_, err := NewExtractor(ExtractConfig{
		MaxLengthPerCategory: -1,
		Patterns: ExtractPatterns{
			Insights: []string{`fine (.+)`, `broken (.+`},
			Mistakes: []string{`[unclosed`},
		},
	})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "cognitive_extraction.max_length_per_category: must not be negative, got -1")
	assert.Contains(t, msg, `cognitive_extraction.extract_patterns.insights[1]: invalid pattern "broken (.+": `)
	assert.Contains(t, msg, `cognitive_extraction.extract_patterns.mistakes[0]: invalid pattern "[unclosed": `)

	var errs interface{ Unwrap() []error }
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs.Unwrap(), 3)
	var fe *FieldError
	require.ErrorAs(t, errs.Unwrap()[1], &fe)
	assert.Equal(t, "cognitive_extraction.extract_patterns.insights[1]", fe.Field)
	var pe *PatternError
	require.ErrorAs(t, fe, &pe)
	assert.Equal(t, "broken (.+", pe.Pattern)
	assert.Contains(t, pe.Reason, "missing closing )")
}

func TestExtractCatastrophicPatternWarns(t *testing.T) {
	e := newExtractor(t, ExtractConfig{
		Patterns: ExtractPatterns{Mistakes: []string{`((a+)+)(?=$)`}, Insights: []string{`insight:\s*(.+?)(?:\n|$)`}},
		Limits:   Limits{MatchTimeout: 50 * time.Millisecond},
	})
	long := strings.Repeat("a", 50000) + "!"
	got := e.Extract([]Result{{ID: "evil", Value: long}, {ID: "ok", Value: "insight: still extracted afterwards"}})
	assert.Equal(t, "still extracted afterwards", got.Insights)
	assert.Empty(t, got.Mistakes)
	require.Len(t, got.Warnings, 1)
	assert.Contains(t, got.Warnings[0].Message, `agent "evil"`)
	assert.Contains(t, got.Warnings[0].Message, "regex match timed out")
	assert.Less(t, len(got.Warnings[0].Message), 300, "the warning quotes only the start of the text")
}

func TestExtractCapsInput(t *testing.T) {
	e := newExtractor(t, ExtractConfig{
		Patterns: ExtractPatterns{Insights: []string{`insight:\s*(.+?)(?:\n|$)`}},
		Limits:   Limits{MaxInput: 64},
	})
	text := "insight: visible near the start\n" + strings.Repeat(".", 100) + "\ninsight: in the middle, not seen\n" + strings.Repeat(".", 100)
	got := e.Extract([]Result{{ID: "a", Value: text}})
	assert.Equal(t, "visible near the start", got.Insights)
	require.Len(t, got.Warnings, 1)
	assert.Contains(t, got.Warnings[0].Message, "scanned only in its first and last 32 bytes")
}

// TestCleanItemIsOrkas compares cleanItem with OrKa's rules written plainly:
// strip, more than 10 characters, whitespace runs collapsed to one space, at
// most 200 characters.
func TestCleanItemIsOrkas(t *testing.T) {
	orka := func(capture string) (string, bool) {
		s := strings.TrimFunc(capture, modeltext.IsSpace)
		if utf8.RuneCountInString(s) <= minItemLen {
			return "", false
		}
		s = strings.Join(strings.FieldsFunc(s, modeltext.IsSpace), " ")
		if utf8.RuneCountInString(s) > maxItemLen {
			return "", false
		}
		return s, true
	}
	inputs := []string{
		"", "short", "  exactly eleven  ", "a plain item with single spaces",
		"two  spaces here", "tab\there and more", "new\nline in the item", "ctrl \x01 char inside ok",
		"sep\x1cchar in item", "nbsp\u00a0inside the item", "ideographic\u3000space item",
		"  \t leading and trailing \n ", "ünïcödé item with spaces", strings.Repeat("x", 200), strings.Repeat("x", 201),
		strings.Repeat("ab ", 67), strings.Repeat("ab  ", 60), "\x85nel around\x85",
	}
	inputs = append(inputs, cogtest.DifferentialTexts()...)
	for _, in := range inputs {
		want, wantOK := orka(in)
		got, n, ok := cleanItem(in)
		require.Equal(t, wantOK, ok, "%q", in)
		if ok {
			require.Equal(t, want, got, "%q", in)
			require.Equal(t, utf8.RuneCountInString(want), n, "%q", in)
		}
	}
}

// TestOrkaHeadsRunWithoutRegexp2: every one of OrKa's example lesson patterns
// runs its head as a program (and the differential tests compare it with the
// expression as written).
func TestOrkaHeadsRunWithoutRegexp2(t *testing.T) {
	for _, exprs := range [][]string{cogtest.OrkaInsights, cogtest.OrkaImprovements, cogtest.OrkaMistakes} {
		for _, expr := range exprs {
			p, err := CompileOptions(expr, PatternOptions{IgnoreCase: true, DotAll: true})
			require.NoError(t, err)
			require.NotNil(t, p.tail, expr)
			assert.NotNil(t, p.tail.prog, expr)
		}
	}
	for _, head := range []string{`a\s+?`, `(?:a|b)+\s+`, `\s+a`, `a[a\s]+`, `a\s+\s+b`, `a\s+(?:b|\tc)`, `a\d+`, `a.`, `(?:a(?:b))`} {
		assert.Nil(t, compileHead(head, true), head)
	}
	hp := compileHead(`(?:key|main)\s+(?:insight|point)s?[:\s]+`, true)
	require.NotNil(t, hp)
	for text, want := range map[string]int{"key points: x": 12, "main insight x": 13, "key  pointx": -1, "keypoint: x": -1, "main insights:": 14} {
		end, ok := hp.match(text, 0)
		if want < 0 {
			assert.False(t, ok, text)
			continue
		}
		assert.True(t, ok, text)
		assert.Equal(t, want, end, text)
	}
}

// TestCollectorDedupesManyItems: de-duplication holds past the items the
// collector compares one by one (maxListedKeys), in first-seen order.
func TestCollectorDedupesManyItems(t *testing.T) {
	c := collector{max: 1 << 20}
	var want []string
	for i := range 3 * maxListedKeys {
		item := fmt.Sprintf("Item number %03d here", i%(2*maxListedKeys))
		if i < 2*maxListedKeys {
			want = append(want, item)
		}
		c.add(item)
		c.add(strings.ToUpper(item))
	}
	assert.Equal(t, strings.Join(want, " | "), c.String())
}
