// Package cognition turns the text of one loop iteration into judgements: the
// iteration's score ([Scorer]), the lessons it taught ([Extractor]: insights,
// improvements, mistakes) and OrKa's secondary metrics ([ReasoningQuality],
// [ConvergenceTrend]). It does no I/O of its own (an [Embedder] the caller
// passes may) and imports no other cogloop package but the leaf helpers
// internal/values, internal/textdist and internal/embedding; the loop node
// hands it an iteration as a []Result in execution order.
//
// It follows OrKa's loop node (reference/orka-loop-spec.md 1.5, 1.6, 1.9, 1.10)
// with cogloop's decisions on OrKa's quirks (DESIGN.md, "Loop node semantics").
//
// # Scores
//
// [NewScorer] builds a [Scorer] from a [ScoreConfig]: strategies (pattern,
// direct_key, agent_key, nested_path, json), high-priority agents, the
// deprecated score_extraction_pattern / score_extraction_key (which replace the
// strategies), OrKa's [DefaultPatterns] when nothing is configured, an optional
// [BooleanScorer] for boolean_evaluations, score_scale and score_from.
// [Scorer.Score] walks OrKa's ladder and returns a [Score] in [0, 1], with where
// it came from (agent, field, pattern); no score is 0 with Found false.
//
// A number is read exactly: an exponent right after the captured digits belongs
// to it ("SCORE: 1e-9" is 1e-9 under OrKa's SCORE:\s*(\d+\.?\d*)), a minus sign
// right before it makes it negative ("SCORE: -0.5"), and a negative number, NaN
// or an infinity is no score (a negative one gives a [CodeNegativeScore]
// warning). Every path then scales by one rule: an explicit denominator right
// after the number wins ("8/10" → 0.8, "7 out of 10" → 0.7), a "%" right after
// it divides by 100; a bare number is read by the score_scale ([ScoreConfig].Scale:
// 1, 10 or 100; above it is no score) or, without one, by the default rule
// ([Normalize]): values up to 1 + [ScoreTolerance] are fractions (1.0000001 is
// 1), values in (1, 100] are percentages (so 1.5 → 0.015), values above 100 are
// 1 — and [Score].Rescaled says so, for the caller to warn.
//
// cogloop extensions, all documented at their functions: a group-less pattern
// works in agent_key strategies too (OrKa raises); direct_key also finds a field
// of an agent's mapping or of a JSON object in its text ({"score": 0.85}); a
// capture with a trailing full stop ("0.85.") is read as the number; OrKa
// accepts nested_path and json strategies but reads nothing with them.

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
// loop pass ([Budget]). [NestedQuantifier] and the Lints of a [Scorer] or
// [Extractor] find patterns worth a load warning.
//
// regexp2 is a backtracking engine that tries a pattern at every position of a
// text. Compiling reads each expression for literals its matches need, so that
// texts without them are skipped and patterns that start with a literal are
// tried only where it occurs, and runs OrKa's "(.+?)(?:\n|$)" line idiom in an
// equivalent form without per-character backtracking ([Pattern], "Speed"). The
// results are those of the expression as written. (Go's RE2-based regexp was
// measured too: it has no DFA, and on these lazy, capturing, case-insensitive
// patterns it was slower than regexp2, before any of this.) A timeout never fails the
// call; it becomes a warning that quotes at most 80 characters of the text. Bad
// patterns are errors at build time ([PatternError] inside a [FieldError] naming
// the YAML field), so the loader can report them with their file position.
//
// # Concurrency
//
// A built [Scorer], [Extractor] or [Pattern] is immutable and safe for concurrent
// use; per-call state (warnings, the regex budget, prepared texts) lives in the
// call. Nothing in the package panics on any input: a panic inside the regex
// engine becomes an error.
package cognition
