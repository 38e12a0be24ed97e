package perf

import (
	"os"
	"slices"
	"strings"
)

// EnvVar names the switches that are off.
const EnvVar = "COGLOOP_PERF_OFF"

// The shortcuts' names, as COGLOOP_PERF_OFF takes them.
const (
	ChunkScan    = "chunkscan"    // types/llm: streamed OpenAI chunks read by a one-pass scanner, not encoding/json
	FastExpr     = "fastexpr"     // prompt: variable paths and helper calls evaluated on the Go data, not by gonja
	FastRender   = "fastrender"   // prompt: templates rendered by their plan, not gonja's renderer
	LazyDeadline = "lazydeadline" // types/llm: a call's deadline context made only when needed
	LexAll       = "lexall"       // prompt: gonja's lexer run with shared raw-block regexps instead of tokens.LexAll
	Pool         = "pool"         // internal/workers: fork branches on kept, pre-grown goroutines
	PlainJSON    = "plainjson"    // internal/plainjson: one-pass JSON decoder instead of encoding/json
	Prefilter    = "prefilter"    // cognition: literal prefilters that skip the regex engine
	VisitedSet   = "visitedset"   // prompt: open-addressing set of walked nodes instead of a map
)

// Names lists every switch.
var Names = []string{ChunkScan, FastExpr, FastRender, LazyDeadline, LexAll, Pool, PlainJSON, Prefilter, VisitedSet}

var off = parse(os.Getenv(EnvVar))

func parse(v string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n == "all" {
			for _, a := range Names {
				m[a] = true
			}
		} else if n != "" {
			m[n] = true
		}
	}
	return m
}

// Off reports whether the shortcut name is switched off.
func Off(name string) bool { return off[name] }

// Unknown lists the names in COGLOOP_PERF_OFF that are no switch.
func Unknown() []string {
	var u []string
	for n := range off {
		if !slices.Contains(Names, n) {
			u = append(u, n)
		}
	}
	slices.Sort(u)
	return u
}
