package loopnode

import (
	"strconv"
	"strings"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/prompt"
)

// metaTemplate is one past_loops_metadata entry: output key → template.
type metaTemplate struct {
	key  string
	tmpl *prompt.Template
}

// defaultMetadata is OrKa's default map (§1.1): each key renders its own variable.
var defaultMetadataKeys = []string{"loop_number", "score", "timestamp", "insights", "improvements", "mistakes"}

var lessonKeys = map[string]bool{"insights": true, "improvements": true, "mistakes": true}

// entryContext is what a past_loops_metadata template sees (§1.7.3).
type entryContext struct {
	loop             int
	score            float64
	reasoningQuality float64
	convergenceTrend string
	timestamp        string
	input            string
	insights         string
	improvements     string
	mistakes         string
	other            map[string]string // further extract_patterns categories
}

// entryVars are the names a past_loops_metadata template sees besides the
// further extract_patterns categories.
var entryVars = map[string]bool{"loop_number": true, "score": true, "reasoning_quality": true,
	"convergence_trend": true, "timestamp": true, "input": true, "insights": true,
	"improvements": true, "mistakes": true}

// buildEntry renders one past_loops entry (§1.7): each template, typed when it is a
// single expression; a template that fails falls back as OrKa does; loop_number,
// score and timestamp are added when the map lacks them.
func buildEntry(metas []metaTemplate, ec entryContext) (map[string]any, []string) {
	vars := map[string]any{
		"loop_number":       ec.loop,
		"score":             ec.score,
		"reasoning_quality": ec.reasoningQuality,
		"convergence_trend": ec.convergenceTrend,
		"timestamp":         ec.timestamp,
		"input":             ec.input,
		"insights":          ec.insights,
		"improvements":      ec.improvements,
		"mistakes":          ec.mistakes,
	}
	for k, v := range ec.other {
		vars[k] = v
	}
	data := prompt.Data{Input: ec.input, LoopNumber: ec.loop, Vars: vars}
	entry := make(map[string]any, len(metas)+3)
	var warnings []string
	for _, m := range metas {
		v, err := m.tmpl.Eval(data)
		if err != nil {
			warnings = append(warnings, "past_loops_metadata."+m.key+": "+err.Error())
			v = fallbackValue(m.key, vars)
		}
		entry[m.key] = v
	}
	for _, k := range []string{"loop_number", "score", "timestamp"} {
		if _, ok := entry[k]; !ok {
			entry[k] = vars[k]
		}
	}
	for k, v := range ec.other {
		if _, ok := entry[k]; !ok {
			entry[k] = v
		}
	}
	return entry, warnings
}

func fallbackValue(key string, vars map[string]any) any {
	switch key {
	case "loop_number", "score", "timestamp", "insights", "improvements", "mistakes":
		return vars[key]
	}
	return "Error rendering " + key
}

// dynamicMetadata is the past_loops_metadata handed into the next iteration (§1.8).
func dynamicMetadata(metas []metaTemplate, past []map[string]any) map[string]any {
	out := make(map[string]any, len(metas))
	for _, m := range metas {
		if lessonKeys[m.key] {
			var parts []string
			for i := len(past) - 1; i >= 0 && i >= len(past)-5; i-- {
				if s := pyStr(past[i][m.key]); s != "" && past[i][m.key] != nil {
					parts = append(parts, s)
				}
			}
			out[m.key] = strings.Join(parts, " | ")
			continue
		}
		if len(past) == 0 {
			out[m.key] = "No " + m.key + " available"
			continue
		}
		v, ok := past[len(past)-1][m.key]
		if !ok {
			out[m.key] = "No " + m.key + " available"
			continue
		}
		out[m.key] = pyStr(v)
	}
	return out
}

// pyStr formats a value as Python's str() would for the JSON-like values a past
// loop holds (1.0 stays "1.0"), so OrKa users see the same strings.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyFloat(x)
	}
	return agents.Text(v)
}

// pyFloat is Python's repr of a float: shortest round-trip digits, always with a
// decimal point or exponent.
func pyFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, ".eIN") {
		return s
	}
	return s + ".0"
}

// now is the timestamp of an entry, local ISO-8601 like Python's isoformat().
func now() string { return time.Now().Format("2006-01-02T15:04:05.000000") }
