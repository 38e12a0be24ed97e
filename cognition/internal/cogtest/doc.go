// Package cogtest holds the test data that the tests of cognition,
// cognition/scorer and cognition/metrics share: OrKa's example lesson
// patterns, realistic model replies, a benchmark iteration, a boolean preset
// table and the texts of the differential tests. Only tests import it; it
// imports no cogloop package (so cognition's own tests can use it).
//
// # Imports
//
// It imports no project package.
package cogtest
