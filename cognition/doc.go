// Package cognition owns the regex work that loop nodes do on model output:
// OrKa's Python-dialect patterns compiled once and run time-bounded on
// regexp2 or Go's regexp ([Pattern], [Scan], [Budget]), and the lessons an
// iteration taught ([Extractor]: insights, improvements, mistakes). The loop
// node hands it an iteration as a []Result in execution order.
//
// Two packages build on it: cognition/scorer reads an iteration's score
// (OrKa's score_extraction_config) with its patterns, and cognition/metrics
// holds the measures that need no regex (secondary metrics, similarity,
// agreement, boolean evaluations).
//
// cognition does no I/O and imports no other cogloop package but the leaf
// helpers internal/values, internal/ascii and cognition/internal/modeltext; it
// must not import cognition/scorer or cognition/metrics (they import it).
//
// It follows OrKa's loop node (reference/orka-loop-spec.md 1.5, 1.9, 1.10)
// with cogloop's decisions on OrKa's quirks (DESIGN.md, "Loop node semantics").
//
// # Cognitive extraction
//
// [NewExtractor] compiles the extract_patterns of each category; [Extractor.Extract]
// applies OrKa's rules (case-insensitive, dot-all, group 1, length limits,
// case-insensitive de-duplication, " | " join, cut with "..."). Where OrKa scans the
// Python repr of a mapping result, cogloop scans its sorted-key JSON.
//
// # Regexes
//
// Patterns are written in Python's dialect, as in OrKa workflow files, and run on
// regexp2 (see [Pattern] for the translation). Every regex applied to model
// output is bounded: a per-regex MatchTimeout, a cap on the bytes scanned, and a
// time budget per Score or Extract call ([Limits]) or shared by the calls of one
// loop pass ([Budget]). A [Scan] is one call's state (its budget and warnings);
// a [Text] is one text prepared once for all the call's patterns.
// [NestedQuantifier] and [Pattern.Lint] find patterns worth a load warning.
//
// regexp2 is a backtracking engine that tries a pattern at every position of a
// text. Compiling reads each expression for literals its matches need, so that
// texts without them are skipped and patterns that start with a literal are
// tried only where it occurs (an [Extractor] finds all its patterns' literals
// in one pass over each text), runs OrKa's "(.+?)(?:\n|$)" line idiom as a
// search for the line's end after the part before it (which, for OrKa's lesson
// patterns, runs as a small program without regexp2), and runs the whole-text
// scans that Go's regexp finds the same matches for on Go's regexp ([Pattern],
// "Speed"). The results are those of the expression as written
// ([Pattern.AsWritten], which the differential tests compare with). A timeout
// never fails the call; it becomes a [Warning] that quotes at most 80
// characters of the text. Bad patterns are errors at build time ([PatternError]
// inside a [FieldError] naming the YAML field), so the loader can report them
// with their file position.
//
// # Concurrency
//
// A built [Extractor] or [Pattern] is immutable and safe for concurrent use;
// per-call state (warnings, the regex budget, prepared texts) lives in the
// call's [Scan]. Nothing in the package panics on any input: a panic inside
// the regex engine becomes an error.
//
// # Imports
//
// It imports cognition/internal/modeltext, internal/ascii, internal/perf and
// internal/values.
package cognition
