package loopnode

import (
	"regexp"
	"strings"
	"time"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
)

// metaTemplate is one past_loops_metadata entry: output key → template.
type metaTemplate struct {
	key  string
	tmpl *prompt.Template
	// bare is the entry variable the template is exactly ({{ name }}), whose
	// value is the variable's own: it is taken without rendering. "" otherwise.
	bare string
	// lesson: key is insights, improvements or mistakes (see dynamicMetadata).
	lesson bool
	// none is what dynamicMetadata gives the key before it has a value
	// (a string, boxed once).
	none any
}

// newMeta is the metaTemplate of key rendered by t.
func newMeta(key string, t *prompt.Template) metaTemplate {
	m := metaTemplate{key: key, tmpl: t, lesson: lessonKeys[key], none: "No " + key + " available"}
	if sub := bareVar.FindStringSubmatch(t.Source()); len(sub) > 1 && entryVars[sub[1]] {
		m.bare = sub[1]
	}
	return m
}

// bareVar matches a template that is one variable and nothing else.
var bareVar = regexp.MustCompile(`\A\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\z`)

// defaultMetadata is OrKa's default map (§1.1): each key renders its own variable.
var defaultMetadataKeys = []string{"loop_number", "score", "timestamp", "insights", "improvements", "mistakes"}

var lessonKeys = map[string]bool{"insights": true, "improvements": true, "mistakes": true}

// entryContext is what a past_loops_metadata template sees (§1.7.3). The
// values that cost something to make (the metrics, the timestamp, the input's
// text) are made when a template reads them.
type entryContext struct {
	loop         int
	score        float64
	results      []cognition.Result // the pass's results: reasoning_quality and convergence_trend read them
	input        any                // the pass's input: the variable input is its text, truncated
	insights     string
	improvements string
	mistakes     string
	other        map[string]string // further extract_patterns categories

	timestamp string // made on first use
}

// entryVars are the names a past_loops_metadata template sees besides the
// further extract_patterns categories.
var entryVars = map[string]bool{"loop_number": true, "score": true, "reasoning_quality": true,
	"convergence_trend": true, "timestamp": true, "input": true, "insights": true,
	"improvements": true, "mistakes": true}

// value is entry variable name (one of entryVars).
func (ec *entryContext) value(name string) any {
	switch name {
	case "loop_number":
		return ec.loop
	case "score":
		return ec.score
	case "reasoning_quality":
		return metrics.ReasoningQuality(ec.results)
	case "convergence_trend":
		return metrics.ConvergenceTrend(ec.results)
	case "timestamp":
		if ec.timestamp == "" {
			ec.timestamp = now()
		}
		return ec.timestamp
	case "input":
		return truncateInput(ec.input)
	case "insights":
		return ec.insights
	case "improvements":
		return ec.improvements
	case "mistakes":
		return ec.mistakes
	}
	return nil
}

// vars are the variables a rendered past_loops_metadata template sees.
func (ec *entryContext) vars() map[string]any {
	vars := make(map[string]any, len(entryVars)+len(ec.other))
	for k := range entryVars {
		vars[k] = ec.value(k)
	}
	for k, v := range ec.other {
		vars[k] = v
	}
	return vars
}

// buildEntry renders one past_loops entry (§1.7): each template, typed when it is a
// single expression; a template that fails falls back as OrKa does; loop_number,
// score and timestamp are added when the map lacks them.
func buildEntry(metas []metaTemplate, ec *entryContext) (map[string]any, []string) {
	entry := make(map[string]any, entrySize(metas, ec))
	var vars map[string]any // made for the first template that is not bare
	var warnings []string
	for _, m := range metas {
		if m.bare != "" {
			entry[m.key] = ec.value(m.bare)
			continue
		}
		if vars == nil {
			vars = ec.vars()
		}
		v, err := m.tmpl.Eval(prompt.Data{Input: vars["input"], LoopNumber: ec.loop, Vars: vars})
		if err != nil {
			warnings = append(warnings, "past_loops_metadata."+m.key+": "+err.Error())
			v = fallbackValue(m.key, ec)
		}
		entry[m.key] = v
	}
	for _, k := range [...]string{"loop_number", "score", "timestamp"} {
		if _, ok := entry[k]; !ok {
			entry[k] = ec.value(k)
		}
	}
	for k, v := range ec.other {
		if _, ok := entry[k]; !ok {
			entry[k] = v
		}
	}
	return entry, warnings
}

// entrySize is the number of keys buildEntry puts in an entry: a map made
// for more than eight keys is a larger structure than one of eight.
func entrySize(metas []metaTemplate, ec *entryContext) int {
	n := len(metas) + len(ec.other)
	for _, k := range [...]string{"loop_number", "score", "timestamp"} {
		n++
		for _, m := range metas {
			if m.key == k {
				n--
				break
			}
		}
	}
	return n
}

func fallbackValue(key string, ec *entryContext) any {
	switch key {
	case "loop_number", "score", "timestamp", "insights", "improvements", "mistakes":
		return ec.value(key)
	}
	return "Error rendering " + key
}

// dynamicMetadata is the past_loops_metadata handed into the next iteration (§1.8).
// A value that is already the string it shows is handed on as it is, not
// boxed again.
func dynamicMetadata(metas []metaTemplate, past []map[string]any) map[string]any {
	out := make(map[string]any, len(metas))
	for _, m := range metas {
		if m.lesson {
			out[m.key] = recentLessons(past, m.key)
			continue
		}
		if len(past) == 0 {
			out[m.key] = m.none
			continue
		}
		v, ok := past[len(past)-1][m.key]
		if !ok {
			out[m.key] = m.none
			continue
		}
		if _, isText := v.(string); isText {
			out[m.key] = v
			continue
		}
		out[m.key] = pyvalue.Str(v)
	}
	return out
}

// recentLessons joins the key's texts of the last five passes, newest first,
// with " | ", skipping empty ones. One text is returned as the entry holds it.
func recentLessons(past []map[string]any, key string) any {
	var parts [5]string
	var one any
	n, size := 0, 0
	for i := len(past) - 1; i >= 0 && i >= len(past)-5; i-- {
		v := past[i][key]
		if v == nil {
			continue
		}
		if s := pyvalue.Str(v); s != "" {
			parts[n] = s
			n++
			size += len(s)
			one = v
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		if _, isText := one.(string); isText {
			return one
		}
		return parts[0]
	}
	var b strings.Builder
	b.Grow(size + (n-1)*len(" | "))
	for i, s := range parts[:n] {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// now is the timestamp of an entry, local ISO-8601 like Python's isoformat().
func now() string { return isoMicro(time.Now()) }

// isoMicro is t.Format("2006-01-02T15:04:05.000000"), written digit by digit.
func isoMicro(t time.Time) string {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.Format("2006-01-02T15:04:05.000000")
	}
	h, mi, sec := t.Clock()
	var b [26]byte
	put := func(at, v, width int) {
		for i := at + width - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, int(mo), 2)
	b[7] = '-'
	put(8, d, 2)
	b[10] = 'T'
	put(11, h, 2)
	b[13] = ':'
	put(14, mi, 2)
	b[16] = ':'
	put(17, sec, 2)
	b[19] = '.'
	put(20, t.Nanosecond()/1000, 6)
	return string(b[:])
}
