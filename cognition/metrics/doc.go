// Package metrics holds the measures of an iteration that need no regex:
// OrKa's secondary metrics ([Metric], [ReasoningQuality], [ConvergenceTrend]),
// the similarity of two texts ([Similarity], for stagnation), the agreement of
// the agents' texts under an embedder ([Agreement]), and boolean evaluations
// ({dimension: {criterion: true|false}}: [BooleanScorer], [Weights], [Passed],
// [ParseBooleanEvaluations]).
//
// It reads cognition's []Result and must not import any cogloop package but
// cognition and the leaf helpers (cognition/internal/modeltext,
// internal/values, internal/textdist, internal/embedding); in particular not
// cognition/scorer, which imports it. It does no I/O of its own (an embedder
// the caller passes may). Everything in it is safe for concurrent use.
//
// # Imports
//
// It imports cognition, cognition/internal/modeltext, internal/embedding,
// internal/pyvalue, internal/textdist and internal/values.
package metrics
