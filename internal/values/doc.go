// Package values owns the readings of decoded workflow values (the any
// trees that YAML, JSON and agents produce) that more than one layer needs:
// maps, text, lists and numbers.
// It imports no project package, so cognition and scoring share it.
//
// # Imports
//
// It imports no project package.
package values
