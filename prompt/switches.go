package prompt

import "github.com/cogloop/cogloop/internal/perf"

// This package's performance shortcuts, each turned off by its
// COGLOOP_PERF_OFF name (PERF.md) for a bisect. They are read once, when the
// process starts; tests flip them to hold a shortcut to the plain way.
var (
	plainLex = perf.Off(perf.LexAll)     // lex.go: tokens.LexAll instead of lexAll's shared regexps
	noFast   = perf.Off(perf.FastExpr)   // fast.go: every expression evaluated by gonja
	noPlan   = perf.Off(perf.FastRender) // plan.go: every template rendered by gonja's renderer
)
