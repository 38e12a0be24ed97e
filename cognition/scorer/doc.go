// Package scorer reads an iteration's score from its agents' results: OrKa's
// score_extraction_config ([ScoreConfig]: strategies, high-priority agents,
// the deprecated score_extraction_pattern / score_extraction_key, OrKa's
// [DefaultPatterns], boolean evaluations, the agreement fallback, score_scale
// and score_from), the number forms a score is written in, and their
// normalisation to [0, 1] ([ParseScore], [Normalize]). (The top-level package
// scoring is something else: the boolean-criteria presets, one
// metrics.BooleanScorer this package can be given.)
//
// It runs its patterns on cognition's bounded regex engine and takes the
// boolean and agreement measures from cognition/metrics. It does no I/O of its
// own (an embedder the caller passes may) and must not import any cogloop
// package but cognition, cognition/metrics and the leaf helpers
// (cognition/internal/modeltext, internal/values, internal/embedding); the
// loop node imports it.
//
// It follows OrKa's loop node (reference/orka-loop-spec.md 1.5, 1.6) with
// cogloop's decisions on OrKa's quirks (DESIGN.md, "Loop node semantics").
//
// # Scores
//
// [NewScorer] builds a [Scorer] from a [ScoreConfig]: strategies (pattern,
// direct_key, agent_key, nested_path, json), high-priority agents, the
// deprecated score_extraction_pattern / score_extraction_key (which replace the
// strategies), OrKa's [DefaultPatterns] when nothing is configured, an optional
// metrics.BooleanScorer for boolean_evaluations, score_scale and score_from.
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
//
// A built [Scorer] is immutable and safe for concurrent use; regex timeouts
// and the like become the [Score]'s Warnings, never errors or panics.
//
// # Imports
//
// It imports cognition, cognition/internal/modeltext, cognition/metrics,
// internal/embedding, internal/pyvalue and internal/values.
package scorer
