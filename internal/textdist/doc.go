// Package textdist owns the edit distances cogloop computes between strings:
// the bounded Levenshtein distance behind similarity scores and "did you
// mean" hints, and the transposition-aware distance used for template-name
// typos. It imports no project package, so every layer may use it.
//
// # Imports
//
// It imports no project package.
package textdist
