package validate

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cogloop/cogloop/internal/pyvalue"
)

// How a model's answer was read, from the most to the least reliable.
const (
	ParsedJSON     = "json"      // a JSON (or Python-literal) object, possibly in prose or a code fence
	ParsedKeyValue = "key_value" // "criterion: true" lines
	ParsedKeywords = "keywords"  // a verdict word shortly after a criterion's name
	ParsedNone     = "none"      // nothing usable: every criterion failed
)

// maxParse caps how much of an answer is read; a validator's answer is a few
// hundred bytes.
const maxParse = 64 << 10

// keywordWindow is how far after a criterion's name the keyword step looks.
const keywordWindow = 100

// criteria reads a model's verdicts on one preset's criteria. It is built once
// per preset and safe for concurrent use.
type criteria struct {
	keys  []string // "dimension.criterion", preset order
	dims  []string // dimensions in order
	kv    [][]*regexp.Regexp
	names [][]*regexp.Regexp
	hints []string // per key: its longest word, which any match contains
}

// newCriteria prepares the matchers of keys ("dimension.criterion"). For each
// criterion the qualified name (dimension.criterion) is tried before the bare
// one, so two dimensions may share a criterion name.
func newCriteria(keys []string) *criteria {
	cs := &criteria{keys: append([]string(nil), keys...)}
	seen := map[string]bool{}
	for _, k := range keys {
		dim, name, _ := strings.Cut(k, ".")
		if !seen[dim] {
			seen[dim] = true
			cs.dims = append(cs.dims, dim)
		}
		forms := []string{words(dim) + `[._\s]` + words(name), words(name)}
		var kv, nm []*regexp.Regexp
		for _, f := range forms {
			kv = append(kv, regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])["'*`+"`"+`]*`+f+`["'*`+"`"+`]*\s*[:=]\s*["'*`+"`"+`]*(true|false|yes|no|passed|pass|failed|fail)\b`))
			nm = append(nm, regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])`+f+`(?:$|[^a-z0-9_])`))
		}
		cs.kv = append(cs.kv, kv)
		cs.names = append(cs.names, nm)
		hint := ""
		for _, w := range strings.Split(name, "_") {
			if len(w) > len(hint) {
				hint = w
			}
		}
		cs.hints = append(cs.hints, strings.ToLower(hint))
	}
	return cs
}

// words quotes a snake_case name so that its underscores also match spaces
// and hyphens ("not_degrading" matches "not degrading").
func words(s string) string {
	parts := strings.Split(s, "_")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, `[_\s-]`)
}

// parse reads the verdicts in text with OrKa's ladder: a JSON object (the
// whole text, a code fence, or the first "{" to the last "}"; Python literals
// accepted) that names at least one dimension; else "criterion: true|false"
// pairs, if any criterion is found; else a verdict word within 100 characters
// after a criterion's name. Every criterion gets a verdict; one the answer does
// not give is false. Garbage gives all false, never an error.
func (cs *criteria) parse(text string) (map[string]map[string]bool, string) {
	if len(text) > maxParse {
		text = text[:maxParse]
	}
	if obj, ok := cs.findObject(text); ok {
		return cs.fromObject(obj), ParsedJSON
	}
	lower := strings.ToLower(text)
	if ev, ok := cs.fromKeyValues(text, lower); ok {
		return ev, ParsedKeyValue
	}
	if ev, ok := cs.fromKeywords(text, lower); ok {
		return ev, ParsedKeywords
	}
	return cs.empty(), ParsedNone
}

func (cs *criteria) empty() map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(cs.dims))
	for _, k := range cs.keys {
		dim, name, _ := strings.Cut(k, ".")
		if out[dim] == nil {
			out[dim] = map[string]bool{}
		}
		out[dim][name] = false
	}
	return out
}

var fences = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)```")

// objects returns the JSON objects text holds, in ladder order.
func objects(text string) []map[string]any {
	var cands []string
	cands = append(cands, strings.TrimSpace(text))
	for _, m := range fences.FindAllStringSubmatch(text, 8) {
		cands = append(cands, m[1])
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		cands = append(cands, text[i:j+1])
	}
	var out []map[string]any
	for _, c := range cands {
		if m, ok := decodeObject(c); ok {
			out = append(out, m)
		}
	}
	return out
}

func (cs *criteria) findObject(text string) (map[string]any, bool) {
	for _, m := range objects(text) {
		if obj := cs.locate(m, 0); obj != nil {
			return obj, true
		}
	}
	return nil, false
}

// decodeObject reads s as one JSON object, else as a Python dict literal.
func decodeObject(s string) (map[string]any, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	if m, ok := decodeJSON(s); ok {
		return m, true
	}
	return decodeJSON(pyToJSON(s))
}

func decodeJSON(s string) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil || d.More() {
		return nil, false
	}
	return m, true
}

var pyWords = regexp.MustCompile(`\b(True|False|None)\b`)

// pyToJSON converts a Python literal's True/False/None and single quotes.
func pyToJSON(s string) string {
	s = pyWords.ReplaceAllStringFunc(s, func(w string) string {
		switch w {
		case "True":
			return "true"
		case "False":
			return "false"
		}
		return "null"
	})
	return strings.ReplaceAll(s, "'", `"`)
}

// normKey reads a key the way the ladder compares names: lower case, spaces
// and hyphens as underscores.
func normKey(k string) string {
	k = strings.ToLower(strings.Trim(strings.TrimSpace(k), `"'*`+"`"))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(k)
}

// locate returns the mapping of obj (or of a mapping nested up to two levels
// below it, such as {"boolean_evaluations": {...}}) that names at least one
// dimension, or one "dimension.criterion" key.
func (cs *criteria) locate(obj map[string]any, depth int) map[string]any {
	for k, v := range obj {
		nk := normKey(k)
		if _, ok := v.(map[string]any); ok && slices.Contains(cs.dims, nk) {
			return obj
		}
		if slices.Contains(cs.keys, nk) {
			return obj
		}
	}
	if depth >= 2 {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if m, ok := obj[k].(map[string]any); ok {
			if found := cs.locate(m, depth+1); found != nil {
				return found
			}
		}
	}
	return nil
}

// fromObject normalises a located object: every criterion, found by
// case-insensitive dimension and criterion names, or as a flat
// "dimension.criterion" key.
func (cs *criteria) fromObject(obj map[string]any) map[string]map[string]bool {
	out := cs.empty()
	byDim := map[string]map[string]any{}
	flat := map[string]any{}
	for k, v := range obj {
		nk := normKey(k)
		if m, ok := v.(map[string]any); ok {
			byDim[nk] = m
		}
		flat[nk] = v
	}
	for _, key := range cs.keys {
		dim, name, _ := strings.Cut(key, ".")
		if v, ok := flat[key]; ok {
			out[dim][name] = verdict(v, 0)
			continue
		}
		for ck, cv := range byDim[dim] {
			if normKey(ck) == name {
				out[dim][name] = verdict(cv, 0)
				break
			}
		}
	}
	return out
}

// verdict reads one answer: a bool; the text true, yes, y, 1, pass, passed,
// ✓ or ✔ (any case); a positive number; or a mapping whose passed, value,
// answer, result, verdict or met key holds one of those.
func verdict(v any, depth int) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "y", "1", "pass", "passed", "✓", "✔":
			return true
		}
	case json.Number:
		f, ok := pyvalue.Number(x)
		return ok && f > 0
	case float64:
		return x > 0
	case int:
		return x > 0
	case map[string]any:
		if depth > 0 {
			return false
		}
		for _, k := range []string{"passed", "value", "answer", "result", "verdict", "met"} {
			for mk, mv := range x {
				if normKey(mk) == k {
					return verdict(mv, depth+1)
				}
			}
		}
	}
	return false
}

// fromKeyValues is step 2: "criterion: true" (or = false, "yes", "pass", ...).
func (cs *criteria) fromKeyValues(text, lower string) (map[string]map[string]bool, bool) {
	return cs.scan(lower, func(i int) (string, bool) {
		for _, re := range cs.kv[i] {
			if m := re.FindStringSubmatch(text); m != nil {
				return m[1], true
			}
		}
		return "", false
	})
}

// scan asks find about each criterion whose hint occurs in lower: whether the
// reply speaks of it (hit) and the verdict word it gives ("" for none, which
// leaves the criterion false). It succeeds when any criterion is hit.
func (cs *criteria) scan(lower string, find func(i int) (word string, hit bool)) (map[string]map[string]bool, bool) {
	out := cs.empty()
	found := false
	for i, key := range cs.keys {
		if !strings.Contains(lower, cs.hints[i]) {
			continue
		}
		word, hit := find(i)
		if !hit {
			continue
		}
		found = true
		if word != "" {
			dim, name, _ := strings.Cut(key, ".")
			out[dim][name] = positive(word)
		}
	}
	return out, found
}

var verdictWord = regexp.MustCompile(`(?i)\b(true|yes|passed|pass|correct|met|false|no|not|failed|fail|incorrect|unmet)\b|[✓✔✗✘]`)

// fromKeywords is step 3: where a criterion's name occurs, the first verdict
// word in the 100 characters after it decides (true, yes, pass, correct, met,
// ✓ against false, no, not, fail, incorrect, unmet, ✗); a name without one is
// false. It succeeds when any criterion's name occurs.
func (cs *criteria) fromKeywords(text, lower string) (map[string]map[string]bool, bool) {
	return cs.scan(lower, func(i int) (string, bool) {
		for _, re := range cs.names[i] {
			loc := re.FindStringIndex(text)
			if loc == nil {
				continue
			}
			end, cut := loc[1], min(len(text), loc[1]+keywordWindow)
			for cut < len(text) && cut > end && !utf8.RuneStart(text[cut]) {
				cut--
			}
			return verdictWord.FindString(text[end:cut]), true
		}
		return "", false
	})
}

func positive(w string) bool {
	switch strings.ToLower(w) {
	case "true", "yes", "pass", "passed", "correct", "met", "✓", "✔":
		return true
	}
	return false
}

// rationale is plan_validator's explanation: a "rationale" field of the
// answer's JSON, else the answer's first 200 characters.
func rationale(text string) string {
	if len(text) > maxParse {
		text = text[:maxParse]
	}
	for _, m := range objects(text) {
		for k, v := range m {
			if normKey(k) == "rationale" {
				if s, ok := v.(string); ok {
					return strings.TrimSpace(s)
				}
			}
		}
	}
	if m := rationaleField.FindStringSubmatch(text); m != nil {
		if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
			return s
		}
		return m[1]
	}
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) <= 200 {
		return text
	}
	return string([]rune(text)[:200]) + "..."
}

var rationaleField = regexp.MustCompile(`(?i)"rationale"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// compactJSON formats v as one line of JSON (sorted keys, no HTML escaping).
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
