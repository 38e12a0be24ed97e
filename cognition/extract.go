package cognition

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cogloop/cogloop/cognition/internal/modeltext"
	"github.com/cogloop/cogloop/internal/ascii"
	"github.com/cogloop/cogloop/internal/values"
)

// DefaultMaxLengthPerCategory is cognitive_extraction.max_length_per_category's default.
const DefaultMaxLengthPerCategory = 300

// OrKa's length rules, in characters.
const (
	minTextLen = 20  // shorter texts are not scanned
	minItemLen = 10  // a captured item must be longer than this (after strip)
	maxItemLen = 200 // and at most this long (after collapsing whitespace)
)

// Categories of cognitive extraction, in OrKa's order.
const (
	CategoryInsights     = "insights"
	CategoryImprovements = "improvements"
	CategoryMistakes     = "mistakes"
)

var categories = [3]string{CategoryInsights, CategoryImprovements, CategoryMistakes}

// ExtractPatterns are cognitive_extraction.extract_patterns: Python-syntax
// regexes per category, applied case-insensitively with "." matching newlines.
type ExtractPatterns struct {
	Insights     []string
	Improvements []string
	Mistakes     []string
	// Other are further categories by name (OrKa drops them; cogloop
	// extracts them like the three above), in file order.
	Other []Category
}

// Category is one extract_patterns category beyond the standard three.
type Category struct {
	Name     string
	Patterns []string
}

// ExtractConfig is the loop node's cognitive_extraction. The zero value is
// OrKa's default: enabled, 300 characters per category, no patterns (so nothing
// is extracted).
type ExtractConfig struct {
	// Disabled is enabled: false; every category is then "".
	Disabled bool
	// MaxLengthPerCategory cuts each category's joined text to this many
	// characters plus "..."; 0 means DefaultMaxLengthPerCategory. Negative is an error.
	MaxLengthPerCategory int
	// Patterns are extract_patterns.
	Patterns ExtractPatterns
	// Limits bound the regex work; zero fields take the defaults.
	Limits
}

// Extraction is what one iteration taught: each category's items joined with
// " | ", cut to the configured length. Warnings report timeouts and cut texts.
type Extraction struct {
	Insights     string
	Improvements string
	Mistakes     string
	// Other holds the Other categories' texts by name (nil without them).
	Other    map[string]string
	Warnings []Warning
}

// Extractor applies cognitive extraction patterns to an iteration's results. It
// is built once from an [ExtractConfig], is immutable and is safe for concurrent use.
type Extractor struct {
	disabled bool
	maxLen   int
	patterns [3][]*Pattern
	others   []otherCategory
	limits   Limits
	index    [2]*litIndex // the literals of the patterns (case-sensitive, lower-cased), when many
	lints    []*FieldError
}

// otherCategory is a compiled [Category].
type otherCategory struct {
	name     string
	patterns []*Pattern
}

// minIndexed is how many prefilter literals make finding them all in one pass
// over a text pay off (a litIndex), rather than a search for each.
const minIndexed = 8

// NewExtractor compiles every pattern with IgnoreCase and DotAll. All problems
// are returned together, joined with errors.Join, each a *[FieldError] whose
// Field names the category and index
// ("cognitive_extraction.extract_patterns.insights[1]") and whose cause is a
// *[PatternError]. Patterns are compiled even when Disabled, so a bad one is
// reported at load either way.
func NewExtractor(cfg ExtractConfig) (*Extractor, error) {
	e := &Extractor{disabled: cfg.Disabled, maxLen: cfg.MaxLengthPerCategory, limits: cfg.Limits.WithDefaults()}
	var errs []error
	if e.maxLen < 0 {
		errs = append(errs, &FieldError{Field: "cognitive_extraction.max_length_per_category",
			Err: fmt.Errorf("must not be negative, got %d", e.maxLen)})
	}
	if e.maxLen == 0 {
		e.maxLen = DefaultMaxLengthPerCategory
	}
	errs = append(errs, e.compile(cfg.Patterns)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	e.indexLiterals()
	return e, nil
}

// compile compiles the patterns of every category (OrKa's flags: DOTALL and
// IGNORECASE) and lints the three built-in categories' ones.
func (e *Extractor) compile(pats ExtractPatterns) []error {
	var errs []error
	opts := PatternOptions{IgnoreCase: true, DotAll: true, Limits: e.limits}
	for c, exprs := range [3][]string{pats.Insights, pats.Improvements, pats.Mistakes} {
		for i, expr := range exprs {
			field := fmt.Sprintf("cognitive_extraction.extract_patterns.%s[%d]", categories[c], i)
			p, err := CompileOptions(expr, opts)
			if err != nil {
				errs = append(errs, &FieldError{Field: field, Err: err})
				continue
			}
			for _, l := range p.Lint(false) {
				e.lints = append(e.lints, &FieldError{Field: field, Err: l})
			}
			e.patterns[c] = append(e.patterns[c], p)
		}
	}
	for _, cat := range pats.Other {
		oc := otherCategory{name: cat.Name}
		for i, expr := range cat.Patterns {
			p, err := CompileOptions(expr, opts)
			if err != nil {
				errs = append(errs, &FieldError{
					Field: fmt.Sprintf("cognitive_extraction.extract_patterns.%s[%d]", cat.Name, i),
					Err:   err,
				})
				continue
			}
			oc.patterns = append(oc.patterns, p)
		}
		e.others = append(e.others, oc)
	}
	return errs
}

// indexLiterals shares one literal index among the prefilters of all the
// patterns (one per case folding) when they have enough literals together.
func (e *Extractor) indexLiterals() {
	var pres [2][]*prefilter
	for _, ps := range e.all() {
		for _, p := range ps {
			if p.hasPre {
				pres[b2i(p.pre.fold)] = append(pres[b2i(p.pre.fold)], &p.pre)
			}
		}
	}
	for fold, ps := range pres {
		n := 0
		for _, pf := range ps {
			n += len(pf.lits)
		}
		if n >= minIndexed {
			newLitIndex(ps)
			if ix := ps[0].index; ix != nil {
				e.index[fold] = ix
			}
		}
	}
}

// Lints returns doubtful but valid patterns (nested quantifiers), each placed
// at its field, for the caller to show as load warnings.
func (e *Extractor) Lints() []*FieldError {
	if e == nil {
		return nil
	}
	return append([]*FieldError(nil), e.lints...)
}

// all lists every category's patterns: the standard three, then the others.
func (e *Extractor) all() [][]*Pattern {
	out := make([][]*Pattern, 0, 3+len(e.others))
	out = append(out, e.patterns[:]...)
	for _, oc := range e.others {
		out = append(out, oc.patterns)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Extract runs OrKa's cognitive extraction over one iteration:
//
//   - texts, agent by agent in execution order: a string result is one text; a
//     mapping gives its response, result, output and data values that are
//     strings, or, when it has none, its whole text form (sorted-key JSON where
//     OrKa uses the Python repr); other values are skipped; texts shorter than 20
//     characters are skipped;
//   - for each text, category and pattern, every match: group 1 (a pattern
//     without a group yields nothing), stripped, kept if longer than 10
//     characters, whitespace runs collapsed to one space, kept if at most 200;
//   - per category: case-insensitive de-duplication keeping the first spelling,
//     joined with " | ", and cut to MaxLengthPerCategory characters plus "...".
//
// A nil or disabled Extractor returns an empty Extraction.
func (e *Extractor) Extract(results []Result) Extraction {
	return e.ExtractWithin(results, nil)
}

// ExtractWithin is [Extractor.Extract] whose regex work counts against b, a
// budget shared with other calls of the same loop pass (nil: the call's own
// budget of Limits.Budget).
func (e *Extractor) ExtractWithin(results []Result, b *Budget) Extraction {
	var out Extraction
	if e == nil || e.disabled {
		return out
	}
	all := e.all()
	n := 0
	for _, ps := range all {
		n += len(ps)
	}
	if n == 0 {
		return out
	}
	sc := Scan{Limits: e.limits, Budget: b}
	cats := make([]collector, len(all))
	for i := range cats {
		cats[i].max = e.maxLen
	}
	for _, res := range Dedupe(results) {
		for _, t := range extractTexts(&sc, res) {
			if t.cut || atLeastRunes(t.s, minTextLen) {
				e.scanText(&sc, t, all, cats)
			}
		}
	}
	out.Insights = cats[0].String()
	out.Improvements = cats[1].String()
	out.Mistakes = cats[2].String()
	for i, oc := range e.others {
		if out.Other == nil {
			out.Other = make(map[string]string, len(e.others))
		}
		out.Other[oc.name] = cats[3+i].String()
	}
	out.Warnings = sc.warnings
	return out
}

// scanText adds what each category's patterns find in t to its collector.
func (e *Extractor) scanText(sc *Scan, t *Text, all [][]*Pattern, cats []collector) {
	for fold, ix := range e.index {
		if ix != nil {
			t.indexLiterals(fold == 1, ix)
		}
	}
	for c, ps := range all {
		for _, p := range ps {
			if cats[c].full() {
				break
			}
			sc.each(p, t, func(start, end int) bool {
				cats[c].add(t.s[t.byteOffset(false, start):t.byteOffset(false, end)])
				return !cats[c].full()
			})
		}
	}
}

func extractTexts(sc *Scan, res Result) []*Text {
	if s, ok := res.Value.(string); ok {
		return []*Text{sc.Text(res.ID, "", s)}
	}
	m, ok := values.AsMap(res.Value)
	if !ok {
		return nil
	}
	var texts []*Text
	for _, f := range modeltext.Fields {
		if s, ok := m[f].(string); ok {
			texts = append(texts, sc.Text(res.ID, f, s))
		}
	}
	if len(texts) == 0 {
		texts = append(texts, sc.Text(res.ID, "", values.Text(m)))
	}
	return texts
}

// collector gathers one category's items, de-duplicated case-insensitively in
// first-seen order. Once the joined text is longer than max, later items cannot
// change the cut result, so it reports full and the remaining scans are skipped.
type collector struct {
	max   int
	items []string
	keys  []string            // the items lower-cased, while there are few
	seen  map[string]struct{} // the same, once there are many
	n     int                 // characters of the joined text
}

// maxListedKeys is how many keys a collector compares one by one before it
// puts them in a map.
const maxListedKeys = 16

func (c *collector) full() bool { return c.n > c.max }

func (c *collector) add(capture string) {
	item, n, ok := cleanItem(capture)
	if !ok {
		return
	}
	key, _, _ := lowerText(item)
	if c.seen == nil {
		for _, k := range c.keys {
			if k == key {
				return
			}
		}
		c.keys = append(c.keys, key)
		if len(c.keys) > maxListedKeys {
			c.seen = make(map[string]struct{}, 2*len(c.keys))
			for _, k := range c.keys {
				c.seen[k] = struct{}{}
			}
		}
	} else {
		if _, dup := c.seen[key]; dup {
			return
		}
		c.seen[key] = struct{}{}
	}
	if len(c.items) > 0 {
		c.n += 3
	}
	c.n += n
	c.items = append(c.items, item)
}

func (c *collector) String() string {
	if len(c.items) == 1 && c.n <= c.max {
		// The item may be a substring of the model's text: keep only the item.
		return strings.Clone(c.items[0])
	}
	joined := strings.Join(c.items, " | ")
	if c.n <= c.max {
		return joined
	}
	i, n := 0, 0
	for i = range joined {
		if n == c.max {
			break
		}
		n++
	}
	return joined[:i] + "..."
}

// cleanItem applies OrKa's item rules to a captured group: stripped, longer
// than minItemLen characters, whitespace runs collapsed to one space, at most
// maxItemLen characters. n is the item's length in characters. An item that
// needs no collapsing is a substring of the capture.
func cleanItem(capture string) (item string, n int, ok bool) {
	s := modeltext.TrimSpace(capture)
	if !atLeastRunes(s, minItemLen+1) {
		return "", 0, false
	}
	if ascii.Is(s) {
		if hasControl(s) || strings.Contains(s, "  ") {
			return collapseItem(s)
		}
		n = len(s)
	} else {
		if needsCollapse(s) {
			return collapseItem(s)
		}
		n = utf8.RuneCountInString(s)
	}
	if n > maxItemLen {
		return "", 0, false
	}
	return s, n, true
}

// needsCollapse reports whether s may have white space to collapse: two
// spaces in a row, an ASCII control character (all of Python's ASCII white
// space but the space is one; another one only takes collapseItem, which
// keeps it) or non-ASCII white space.
func needsCollapse(s string) bool {
	if strings.Contains(s, "  ") {
		return true
	}
	for i := 0; i < len(s); {
		k := ascii.Prefix(s[i:])
		if hasControl(s[i : i+k]) {
			return true
		}
		if i += k; i == len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return true
		}
		i += size
	}
	return false
}

// hasControl reports whether ASCII s has a byte below 0x20, eight bytes at a
// time.
func hasControl(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// The high bit of a byte of w-0x20… is set when the byte is below 0x20
		// (all bytes are ASCII, so no borrow reaches a byte that is not).
		if w := word(s[i:]); (w-0x2020202020202020)&hiBits != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// collapseItem is cleanItem for a stripped text with whitespace to collapse.
func collapseItem(s string) (string, int, bool) {
	var b strings.Builder
	n := 0
	space := false
	for _, c := range s {
		if modeltext.IsSpace(c) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(c)
		n++
		if n > maxItemLen {
			return "", 0, false
		}
	}
	return b.String(), n, true
}

// atLeastRunes reports whether s has at least n characters.
func atLeastRunes(s string, n int) bool {
	if len(s) < n {
		return false
	}
	if len(s) >= n*utf8.UTFMax {
		return true
	}
	return utf8.RuneCountInString(s) >= n
}
