// Package report renders a run record as one self-contained HTML page: the run
// summary; for each loop a score-per-pass chart (inline SVG: the threshold
// line, the best pass marked, failed passes marked as such, one line per run
// of a nested loop); per pass the stop-condition results, the lessons
// extracted, tokens, errors and, collapsed, every agent's rendered prompt and
// reply.
//
// The page needs no network and runs no script: CSS and SVG are inline and
// <details> does the expanding. It is rendered with html/template, so every
// value that came from a model or a user (prompts, replies, errors, ids) is
// escaped: a reply holding <script> shows as text.
//
// [Write] renders from a [records.Summary], so the CLI's report command (from
// a record file) and run --report (from the run's events in memory) share it.
// Rendering is a pure function of its input and safe for concurrent use.
//
// # Imports
//
// It imports agents/fault, agents/spend and app/records.
package report
