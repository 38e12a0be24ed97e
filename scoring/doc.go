// Package scoring owns boolean-criteria scoring: named presets that weigh
// "dimension.criterion" verdicts (true/false answers of a model) into one score
// in [0, 1], and the [Calculator] that applies them. It is OrKa's
// orka/scoring (presets and BooleanScoreCalculator) as data plus a few
// functions; it imports no agent machinery, only agents/load for its load
// problems (a *[load.Error], like every loader's).
//
// # Presets
//
// A [Preset] is one level (strict, moderate, lenient, or a user's own) of one
// context (loop_convergence, quality, graphscout — also called path —,
// validation, or a user's own): its criteria with their weights, which sum to
// 1, and the approved / needs_improvement thresholds that choose an
// assessment label. A [Catalog] holds them. [Embedded] is the catalog of the
// files shipped in configs/presets (embedded in the binary); [Catalog.LoadDir]
// overlays a directory of the user's files on a catalog (a context the
// directory defines again keeps its other levels; a level it defines again is
// replaced). [Default] is the embedded catalog, overlaid with the directory
// named by $COGLOOP_PRESETS_DIR when that is set; agent factories get the
// catalog of the workflow being built from agents.Builder.Presets, which
// falls back to Default.
//
// A preset file describes one context:
//
//	context: loop_convergence
//	aliases: [loop]                      # optional other names
//	description: Is the loop converging?
//	criteria:                            # optional; the question per criterion
//	  improvement.better_than_previous: The output is better than the previous iteration's.
//	presets:
//	  strict:
//	    description: High standards.
//	    instruction: Judge STRICTLY.     # prompt wording for validators
//	    approved: 0.90
//	    needs_improvement: 0.75
//	    weights:
//	      improvement.better_than_previous: 0.30
//	      ...
//
// Loading checks every file and reports every problem with its file:line:col
// (a *[load.Error]): unknown keys, keys that are not "dimension.criterion",
// negative weights, weights that do not sum to 1 (±0.001), weights of
// criteria the context does not list, thresholds out of order.
//
// # Scores
//
// [NewCalculator] (or [Catalog.Calculator]) builds a [Calculator] from a
// preset and optional custom weights: a custom weight replaces the preset's
// weight of that criterion, then all weights are divided by their sum when it
// differs from 1 by more than 0.001; a key that names no criterion of the
// preset, or a negative weight, is an error. The score is the sum of the
// weights of the criteria that passed ([Passed]: true, or the text true, yes,
// 1, pass or passed in any case), rounded to 4 decimals. A Calculator is a
// cognition/metrics.BooleanScorer and CriteriaLister, so a loop node scores
// boolean_evaluations with it.
//
// # Concurrency
//
// Catalogs, presets handed out by a catalog, and calculators are immutable and
// safe for concurrent use. Methods that return presets return copies.
//
// # Imports
//
// It imports agents/load, cognition/metrics, configs, internal/values and
// internal/yamlnode.
package scoring
