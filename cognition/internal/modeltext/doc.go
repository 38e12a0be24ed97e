// Package modeltext holds how cognition's packages read model output, so that
// each rule is written once: Python's whitespace, finite numbers, JSON objects
// or Python dict literals in a text, the mapping fields that hold an agent's
// text, and cutting texts for scans (Cap) and for quotes in warnings and errors
// (Excerpt).
//
// It imports no cogloop package; cognition, cognition/scorer and
// cognition/metrics import it.
//
// # Imports
//
// It imports no project package.
package modeltext
